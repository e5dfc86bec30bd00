import { defineConfig } from 'vite';

// `vite build portal` (npm run build): the app under /portal, built into dist/portal beside the
// compiled service, which serves it (src/portal). Hashed file names under assets/ are cached for a year.
export default defineConfig({
  base: '/portal/',
  build: {
    outDir: '../dist/portal',
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline scripts or data: URLs: the Content-Security-Policy allows 'self' only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    rollupOptions: {
      // react-router and TanStack Query mark their modules "use client" for React Server Components,
      // which a browser-only bundle has no use for: the warning for each says nothing here.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  oxc: { jsx: { runtime: 'automatic' } },
});
