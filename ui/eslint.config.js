// `npm run lint` (part of `make test-ui`). Type-aware: the TypeScript rules read the same
// tsconfig.json as `npm run typecheck`, so a floating promise or an unsafe `any` is caught
// where tsc alone lets it through.

import js from '@eslint/js';
import react from 'eslint-plugin-react';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig([
  globalIgnores([
    'dist/',
    'node_modules/',
    'test-results/',
    // Written by `make gen` from the Rust types; fixed there, not here.
    'src/generated/',
    // Figures for a person to read (make bench-ui), outside the tsconfig project and every suite.
    'bench/',
  ]),
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // As tsc's noUnused* read them: a leading _ or a rest sibling (`{ omitted: _, ...rest }`) is unused on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    ...react.configs.flat.recommended,
    settings: { react: { version: 'detect' } },
    languageOptions: {
      ...react.configs.flat.recommended.languageOptions,
      globals: globals.browser,
    },
  },
  { files: ['src/**/*.{ts,tsx}'], ...react.configs.flat['jsx-runtime'] },
  {
    files: ['src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      // Flags every loader whose setState follows an await (react/react#34905); the rest reset state when what is shown changes.
      'react-hooks/set-state-in-effect': 'off',
    },
  },
  {
    files: ['src/**/*.test.{ts,tsx}'],
    rules: {
      // Vitest types its asymmetric matchers (expect.stringContaining, expect.any…) as any.
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    files: ['src/conversations/download.ts'],
    rules: {
      // A file name drops the control characters file systems refuse: matched on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['vite.config.ts'],
    languageOptions: { globals: globals.node },
  },
  // The end-to-end suites and this file run in Node and are not in the tsconfig project.
  {
    files: ['**/*.{js,mjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
  // What they hand to page.evaluate() runs in the page.
  {
    files: ['e2e/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
]);
