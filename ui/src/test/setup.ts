import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(async () => {
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
  document.documentElement.removeAttribute('lang');
  document.documentElement.removeAttribute('data-theme');
  window.history.replaceState(null, '', '/');
  // React's scheduler may still hold a task (setImmediate) from the unmount: run it while the
  // page exists, or under load it runs after the file's last test, when `window` is gone.
  await new Promise((resolve) => setImmediate(resolve));
});

// The parts the app loads on demand (lazy/pages.ts), loaded before any test: their first
// import compiles a large module graph, which on a busy machine outlasts a test's waiting time.
// Tests still go through the lazy boundary; it only finds the chunk ready.
await Promise.all([import('../chat/ConversationPane'), import('../settings/SettingsPage')]);
