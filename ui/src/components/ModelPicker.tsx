import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { ConversationModel } from '../generated/ConversationModel';
import type { ModelStatus } from '../generated/ModelStatus';
import type { ProviderList } from '../generated/ProviderList';
import type { ProviderRow } from '../generated/ProviderRow';
import { SettingsApi } from '../settings/api';
import type { TesseraClient } from '../transport/client';

/**
 * Providers a person can talk to now: those they saved (unless a key is missing), and presets
 * whose key was given (in the keyring or the environment). A preset never set up is left out.
 */
export function usableProviders(list: ProviderList): ProviderRow[] {
  return list.providers.filter((p) => {
    if (p.default) return true;
    if (p.source === 'saved') return p.key !== 'missing';
    return p.key === 'env' || p.key === 'keyring';
  });
}

/**
 * A provider's models, its default first, then those configured, then the others it said it
 * serves when asked (as Settings lists them).
 */
function modelsOf(row: ProviderRow, served: string[] = []): string[] {
  const models = [...row.models];
  if (row.default_model && !models.includes(row.default_model)) models.unshift(row.default_model);
  if (row.default_model) models.sort((a, b) => Number(b === row.default_model) - Number(a === row.default_model));
  for (const m of served) if (!models.includes(m)) models.push(m);
  return models;
}

function readyModel(status: ModelStatus | undefined): ConversationModel | null {
  // A model named on the command line has no provider name: the model alone is shown.
  return status?.ready && status.model ? { provider: status.provider ?? '', model: status.model } : null;
}

function same(a: ConversationModel | null, b: ConversationModel | null): boolean {
  return a?.provider === b?.provider && a?.model === b?.model;
}

interface ModelOptionProps {
  text: string;
  /** What picking it chooses; null: the default provider's. */
  model: ConversationModel | null;
  /** The model in use. */
  value: ConversationModel | null;
  detail?: string;
  onPick: (model: ConversationModel | null) => void;
}

function ModelOption({ text, model, value, detail, onPick }: ModelOptionProps) {
  return (
    <button
      type="button"
      role="menuitemradio"
      aria-checked={same(model, value)}
      className="menu-item model-option"
      data-testid="model-option"
      data-provider={model?.provider ?? ''}
      data-model={model?.model ?? ''}
      onClick={() => onPick(model)}
    >
      <span className="model-option-check" aria-hidden="true">
        {same(model, value) ? '✓' : ''}
      </span>
      <span className="model-option-name">{text}</span>
      {detail && <span className="model-option-detail">{detail}</span>}
    </button>
  );
}

export interface ModelPickerProps {
  client: TesseraClient;
  /** The conversation's own model, or the one just picked; null: the default provider's. */
  value: ConversationModel | null;
  onChange: (model: ConversationModel | null) => void;
}

/**
 * Which provider and model answer the next message, picked in the composer: the default
 * provider's, or any model of a provider that is set up. The list is read again at each opening
 * (providers change in the settings).
 */
export function ModelPicker({ client, value, onChange }: ModelPickerProps) {
  const { t } = useTranslation();
  const api = useRef(new SettingsApi(client));
  const [list, setList] = useState<ProviderList | null>(null);
  /** The default provider's model (from the settings, which read no key). */
  const [fallback, setFallback] = useState<ConversationModel | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** The models each provider said it serves, by provider: kept while the picker lives. */
  const [served, setServed] = useState<Record<string, string[]>>({});
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement | null>(null);
  const menu = useRef<HTMLDivElement | null>(null);

  const load = useCallback(async () => {
    try {
      const providers = await api.current.providers();
      setList(providers);
      setFallback(readyModel(providers.model));
      setError(null);
      // Each provider is asked what it serves; one that cannot answer keeps its configured
      // models, and none holds the menu up.
      for (const p of usableProviders(providers)) {
        api.current.models(p.name).then(
          (models) => setServed((known) => ({ ...known, [p.name]: models.map((m) => m.id) })),
          () => undefined,
        );
      }
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  }, []);

  // The label needs the default model only; the providers (and their keys) are read when the
  // menu opens.
  useEffect(() => {
    api.current = new SettingsApi(client);
    let live = true;
    api.current.settings().then(
      (settings) => {
        if (live) setFallback(readyModel(settings.model));
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [client]);

  // Focus the model in use when the menu opens (or its list arrives); a list read again while
  // the person moves through it leaves their place alone. A click elsewhere closes it.
  useEffect(() => {
    if (!open) return;
    const items = () => Array.from(menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitemradio"]') ?? []);
    if (!menu.current?.contains(document.activeElement)) {
      (items().find((i) => i.getAttribute('aria-checked') === 'true') ?? items()[0])?.focus();
    }
    const away = (event: MouseEvent) => {
      if (!menu.current?.contains(event.target as Node) && !button.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', away);
    return () => document.removeEventListener('mousedown', away);
  }, [open, list]);

  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const pick = (model: ConversationModel | null) => {
    onChange(model);
    close();
  };

  const onMenuKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = Array.from(menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitemradio"]') ?? []);
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    const move = (to: number) => {
      event.preventDefault();
      items[(to + items.length) % items.length]?.focus();
    };
    if (event.key === 'ArrowDown') move(at + 1);
    else if (event.key === 'ArrowUp') move(at - 1);
    else if (event.key === 'Home') move(0);
    else if (event.key === 'End') move(items.length - 1);
    else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      close();
    } else if (event.key === 'Tab') setOpen(false);
  };

  const shown = value ?? fallback;
  const named = (m: ConversationModel) => (m.provider ? `${m.provider} · ${m.model}` : m.model);
  const label = shown ? named(shown) : t('modelPicker.none');
  const providers = list ? usableProviders(list) : [];

  return (
    <div className="model-picker">
      <button
        ref={button}
        type="button"
        className="model-picker-button"
        data-testid="model-picker"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={t('modelPicker.label', { model: label })}
        title={t('modelPicker.hint')}
        onClick={() => {
          if (!open) void load();
          setOpen(!open);
        }}
      >
        <span className="model-picker-value">{label}</span>
        <span className="model-picker-chevron" aria-hidden="true">
          ▾
        </span>
      </button>
      {open && (
        <div ref={menu} className="menu model-menu" role="menu" aria-label={t('modelPicker.menu')} onKeyDown={onMenuKey} data-testid="model-menu">
          {fallback && <ModelOption text={t('modelPicker.default')} model={null} value={value} detail={named(fallback)} onPick={pick} />}
          {providers.map((p) => (
            <div key={p.name} role="group" aria-label={p.name} className="model-group">
              <p className="model-group-title" aria-hidden="true">
                {p.name}
              </p>
              {modelsOf(p, served[p.name]).map((m) => (
                <ModelOption key={`${p.name}/${m}`} text={m} model={{ provider: p.name, model: m }} value={value} onPick={pick} />
              ))}
            </div>
          ))}
          {list && providers.length === 0 && <p className="model-menu-note">{t('modelPicker.nothing')}</p>}
          {error && (
            <p className="model-menu-note" role="alert">
              {t('modelPicker.failed', { error })}
            </p>
          )}
        </div>
      )}
    </div>
  );
}
