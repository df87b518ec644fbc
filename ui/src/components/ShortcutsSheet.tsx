import { useRef, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Overlay } from './Overlay';
import { useModalFocus } from './useModalFocus';

/** Ctrl on Linux and Windows, ⌘ on macOS. */
export function modKey(): string {
  return /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘' : 'Ctrl';
}

/** The keyboard shortcuts, as a sheet that `?` opens and Escape closes. */
export function ShortcutsSheet({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDivElement | null>(null);
  useModalFocus(ref);
  const mod = modKey();
  const rows: [string, string][] = [
    [`${mod}+N`, t('shortcuts.newConversation')],
    [`${mod}+K`, t('shortcuts.search')],
    [`${mod}+Shift+C`, t('shortcuts.copyLast')],
    ['Esc', t('shortcuts.stop')],
    [`${mod}+,`, t('shortcuts.settings')],
    ['Enter', t('shortcuts.send')],
    ['Shift+Enter', t('shortcuts.newLine')],
    ['?', t('shortcuts.sheet')],
  ];
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape' || event.key === '?') {
      event.preventDefault();
      event.stopPropagation();
      onClose();
    }
  };
  return (
    <Overlay>
      <div className="dialog-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
        <div ref={ref} className="dialog shortcuts-sheet" role="dialog" aria-modal="true" aria-label={t('shortcuts.title')} tabIndex={-1} onKeyDown={onKeyDown} data-testid="shortcuts-sheet">
          <h2 className="dialog-title">{t('shortcuts.title')}</h2>
          <dl className="shortcuts-list">
            {rows.map(([keys, what]) => (
              <div key={keys} className="shortcuts-row">
                <dt>
                  <kbd>{keys}</kbd>
                </dt>
                <dd>{what}</dd>
              </div>
            ))}
          </dl>
          <div className="dialog-actions">
            <button type="button" className="button button-primary" onClick={onClose}>
              {t('shortcuts.close')}
            </button>
          </div>
        </div>
      </div>
    </Overlay>
  );
}
