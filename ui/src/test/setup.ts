import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => {
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
  document.documentElement.removeAttribute('lang');
  document.documentElement.removeAttribute('data-theme');
  window.history.replaceState(null, '', '/');
});

// The parts the app loads on demand (lazy/pages.ts), loaded before any test: their first
// import compiles a large module graph, which on a busy machine outlasts a test's waiting time.
// Tests still go through the lazy boundary; it only finds the chunk ready.
await Promise.all([import('../chat/ConversationPane'), import('../settings/SettingsPage')]);
