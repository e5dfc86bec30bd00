// CommonJS project on NestJS 11 (see README, "Module system"). @swc/jest keeps decorator metadata,
// which Nest's DI and class-validator need. `--experimental-vm-modules` (package.json "test") lets
// CommonJS code `import()` the few ESM-only packages (embedded PostgreSQL's binaries).
const { readFileSync } = require('node:fs');

const swc = JSON.parse(readFileSync(`${__dirname}/.swcrc.jest.json`, 'utf8'));
delete swc.$schema;

const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
};

module.exports = {
  // A global option: jest ignores it inside a project.
  testTimeout: 60000,
  // One test file at a time (jest's default on 2 cores): see docs/architecture.md, "Tests", for why
  // not two.
  maxWorkers: 1,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/src/**/*.spec.ts',
        '<rootDir>/examples/**/*.spec.ts',
        '<rootDir>/portal/src/**/*.spec.ts',
      ],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
