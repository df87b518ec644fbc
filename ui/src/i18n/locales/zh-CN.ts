import type { Messages } from './en';

/** 简体中文界面文本。键与 en.ts 完全一致。 */
const zhCN: Messages = {
  app: {
    name: 'Tessera',
    skipToComposer: '跳到消息输入框',
  },
  sidebar: {
    label: '会话',
    newConversation: '新建会话',
    searchLabel: '搜索会话',
    searchPlaceholder: '搜索…',
    empty: '还没有会话',
    emptyHint: '你开始的会话会列在这里。',
    noMatches: '没有与“{{query}}”匹配的会话',
  },
  chat: {
    newConversationTitle: '新会话',
    messagesLabel: '消息',
    welcomeTitle: '欢迎使用 Tessera',
    welcomeBody: '提出问题或描述一项任务，开始一段会话。',
  },
  composer: {
    label: '消息',
    placeholder: '给 Tessera 发消息…',
    send: '发送',
    hint: '按 Enter 发送，Shift+Enter 换行',
    notConnected: '尚未连接到引擎',
    connecting: '正在连接引擎…',
  },
  settings: {
    label: '设置',
    language: '语言',
    theme: '主题',
    themeSystem: '跟随系统',
    themeLight: '浅色',
    themeDark: '深色',
  },
};

export default zhCN;
