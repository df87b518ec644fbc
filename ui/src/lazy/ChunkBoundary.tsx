import { Component, Suspense, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

interface Props {
  children: ReactNode;
  /** What a failure to load says, in the person's language. */
  failed: string;
  reload: string;
}

/**
 * Catches a chunk that could not be loaded (the served files changed under an open page, a
 * broken install) and says so with a way out, instead of an empty window.
 */
class ChunkErrorBoundary extends Component<Props, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className="notice notice-error" role="alert" data-testid="chunk-error">
        <p>
          {this.props.failed} ({this.state.error.message})
        </p>
        <button type="button" className="button" onClick={() => window.location.reload()}>
          {this.props.reload}
        </button>
      </div>
    );
  }
}

/**
 * A lazily loaded part of the UI: a status line while it loads (or nothing, with `quiet`, where
 * a line would only flash: the chunk is local and usually preloaded), a clear error if it cannot.
 */
export function LazyPart({ children, quiet = false }: { children: ReactNode; quiet?: boolean }) {
  const { t } = useTranslation();
  return (
    <ChunkErrorBoundary failed={t('app.partFailed')} reload={t('app.reload')}>
      <Suspense
        fallback={
          quiet ? null : (
            <p className="log-status" role="status">
              {t('app.loadingPart')}
            </p>
          )
        }
      >
        {children}
      </Suspense>
    </ChunkErrorBoundary>
  );
}
