/**
 * English UI texts. This object is the reference shape: every other locale must have
 * exactly the same keys (checked by the type `Messages` and by a unit test).
 */
const en = {
  app: {
    name: 'Tessera',
    skipToComposer: 'Skip to message input',
  },
  sidebar: {
    label: 'Conversations',
    newConversation: 'New conversation',
    searchLabel: 'Search conversations',
    searchPlaceholder: 'Search…',
    empty: 'No conversations yet',
    emptyHint: 'Conversations you start will be listed here.',
    noMatches: 'No conversations match “{{query}}”',
  },
  chat: {
    newConversationTitle: 'New conversation',
    messagesLabel: 'Messages',
    welcomeTitle: 'Welcome to Tessera',
    welcomeBody: 'Ask a question or describe a task to start a conversation.',
  },
  composer: {
    label: 'Message',
    placeholder: 'Message Tessera…',
    send: 'Send',
    hint: 'Enter to send, Shift+Enter for a new line',
    notConnected: 'Not connected to an engine yet',
    connecting: 'Connecting to the engine…',
  },
  settings: {
    label: 'Settings',
    language: 'Language',
    theme: 'Theme',
    themeSystem: 'System',
    themeLight: 'Light',
    themeDark: 'Dark',
  },
};

export default en;

/** The shape every locale must have: the same keys as English, each a string. */
export type Messages = { [S in keyof typeof en]: { [K in keyof (typeof en)[S]]: string } };
