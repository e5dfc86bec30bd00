import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.data/**',
      'coverage/**',
      '*.config.js',
      '*.config.mjs',
      '.dependency-cruiser.js',
      // Generated from the OpenAPI document (npm run build:portal-api).
      'portal/src/api/schema.gen.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  // Layering: no feature imports docs/ (the document assembly); common/ and docs/ import no feature.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/app.factory.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(\\.\\./)+docs/', message: 'Features depend on common/openapi, never on docs/.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/common/**/*.ts', 'src/docs/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(auth|users|subscriptions|deliveries|dispatcher|health|docs)/',
              message: 'common/ and docs/ depend on no feature: move the shared piece to common/.',
            },
          ],
        },
      ],
    },
  },
  // Functions a reader can hold at once: split a longer one into named steps (tests excepted).
  {
    files: ['src/**/*.ts', 'bench/**/*.mjs', 'scripts/**/*.mjs', 'portal/src/**/*.{ts,tsx}'],
    ignores: ['src/**/*.spec.ts', 'portal/src/**/*.{spec,test}.{ts,tsx}'],
    rules: {
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
    },
  },
  // The portal: the Rules of Hooks and the React Compiler's checks (purity, refs, state in effects).
  { files: ['portal/src/**/*.{ts,tsx}'], ...reactHooks.configs.flat.recommended },
);
