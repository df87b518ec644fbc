import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ThemeChoice } from '../theme';
import type { TesseraClient } from '../transport/client';
import { AgentsSection } from './AgentsSection';
import { SettingsApi } from './api';
import { GeneralSection } from './GeneralSection';
import { LocalModelsSection } from '../localModels/LocalModelsSection';
import { McpSection, type CurrentConversation } from './McpSection';
import { PermissionsSection } from './PermissionsSection';
import { ProvidersSection } from './ProvidersSection';
import './settings.css';

export const SECTIONS = ['general', 'providers', 'localModels', 'agents', 'mcp', 'permissions'] as const;
export type SectionId = (typeof SECTIONS)[number];

const SECTION_KEYS = {
  general: 'settings.general',
  providers: 'settings.providers',
  localModels: 'settings.localModels',
  agents: 'settings.agents',
  mcp: 'settings.mcp',
  permissions: 'settings.permissions',
} as const satisfies Record<SectionId, string>;

export interface SettingsPageProps {
  client: TesseraClient | null;
  theme: ThemeChoice;
  onThemeChange: (choice: ThemeChoice) => void;
  /** Back to the chat. */
  onClose: () => void;
  initialSection?: SectionId;
  /** The conversation open in the chat, if any (MCP resources can be attached to it). */
  conversation?: CurrentConversation | null;
}

/** Settings: a list of sections on the left (where the conversations are in the chat). */
export function SettingsPage({ client, theme, onThemeChange, onClose, initialSection = 'general', conversation = null }: SettingsPageProps) {
  const { t } = useTranslation();
  const [section, setSection] = useState<SectionId>(initialSection);
  const api = useMemo(() => (client ? SettingsApi.of(client) : null), [client]);
  const headingRef = useRef<HTMLHeadingElement | null>(null);

  // Arriving here (or in another section) puts the keyboard at the top of what is shown.
  useEffect(() => {
    headingRef.current?.focus();
  }, [section]);

  return (
    <>
      <nav className="sidebar settings-nav" aria-label={t('settings.sectionsLabel')} data-testid="settings-nav">
        <div className="sidebar-brand">
          <button type="button" className="button button-secondary settings-back" onClick={onClose}>
            {t('nav.backToChat')}
          </button>
        </div>
        <ul className="settings-nav-list">
          {SECTIONS.map((id) => (
            <li key={id}>
              <button type="button" className="settings-nav-item" aria-current={id === section ? 'page' : undefined} onClick={() => setSection(id)}>
                {t(SECTION_KEYS[id])}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <main className="settings-main" data-testid="settings" aria-labelledby="settings-title">
        <header className="chat-header">
          <h1 id="settings-title" className="chat-title">
            {t('settings.label')}
          </h1>
        </header>
        <div className="settings-body">
          <h2 className="settings-section-title" tabIndex={-1} ref={headingRef}>
            {t(SECTION_KEYS[section])}
          </h2>
          {section === 'general' && <GeneralSection api={api} theme={theme} onThemeChange={onThemeChange} />}
          {section === 'providers' && <ProvidersSection api={api} />}
          {section === 'localModels' && <LocalModelsSection api={api} />}
          {section === 'agents' && <AgentsSection api={api} />}
          {section === 'mcp' && <McpSection api={api} conversation={conversation} />}
          {section === 'permissions' && <PermissionsSection client={client} />}
        </div>
      </main>
    </>
  );
}
