import { createContext, useContext, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Overlay } from '../../components/Overlay';
import type { ToolImage } from '../../generated/ToolImage';
import type { JsonValue } from '../../generated/serde_json/JsonValue';

/** What loads an attachment's bytes: the TesseraClient, so the desktop shell's IPC carries it too. */
export interface AttachmentSource {
  getAttachment(sha256: string, signal?: AbortSignal): Promise<Blob>;
}

const AttachmentContext = createContext<AttachmentSource | null>(null);

export function AttachmentProvider({ source, children }: { source: AttachmentSource | null; children: ReactNode }) {
  return <AttachmentContext.Provider value={source}>{children}</AttachmentContext.Provider>;
}

const SHA256 = /^[0-9a-f]{64}$/;

/** The images a tool result lists under `images` (the engine's convention), the malformed left out. */
export function imagesOf(result: JsonValue | undefined): ToolImage[] {
  if (!result || typeof result !== 'object' || Array.isArray(result)) return [];
  const list = result['images'];
  if (!Array.isArray(list)) return [];
  const images: ToolImage[] = [];
  for (const item of list) {
    if (!item || typeof item !== 'object' || Array.isArray(item)) continue;
    const { sha256, mime_type: mime, width, height, name } = item;
    if (typeof sha256 !== 'string' || !SHA256.test(sha256) || typeof mime !== 'string' || !mime.startsWith('image/')) continue;
    const image: ToolImage = { sha256, mime_type: mime };
    if (typeof width === 'number') image.width = width;
    if (typeof height === 'number') image.height = height;
    if (typeof name === 'string') image.name = name;
    images.push(image);
  }
  return images;
}

/** An object URL of the attachment while the component shows it; revoked when it goes. */
function useAttachmentUrl(sha256: string): { url: string | null; failed: boolean } {
  const source = useContext(AttachmentContext);
  const [state, setState] = useState<{ url: string | null; failed: boolean }>({ url: null, failed: false });
  useEffect(() => {
    if (!source) {
      setState({ url: null, failed: true });
      return;
    }
    const controller = new AbortController();
    let url: string | null = null;
    setState({ url: null, failed: false });
    source.getAttachment(sha256, controller.signal).then(
      (blob) => {
        if (controller.signal.aborted) return;
        url = URL.createObjectURL(blob);
        setState({ url, failed: false });
      },
      () => {
        if (!controller.signal.aborted) setState({ url: null, failed: true });
      },
    );
    return () => {
      controller.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [source, sha256]);
  return state;
}

function ImageViewer({ url, alt, onClose }: { url: string; alt: string; onClose: () => void }) {
  const { t } = useTranslation();
  const closeRef = useRef<HTMLButtonElement | null>(null);
  useLayoutEffect(() => closeRef.current?.focus(), []);
  return (
    <Overlay>
      <div
        className="tool-image-viewer"
        role="dialog"
        aria-modal="true"
        aria-label={alt}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            onClose();
          }
        }}
        onClick={(e) => {
          if (e.target === e.currentTarget) onClose();
        }}
      >
        <img src={url} alt={alt} className="tool-image-large" />
        <button type="button" ref={closeRef} className="button" onClick={onClose}>
          {t('tool.imageClose')}
        </button>
      </div>
    </Overlay>
  );
}

export function ToolImageThumb({ image, alt }: { image: ToolImage; alt: string }) {
  const { t } = useTranslation();
  const { url, failed } = useAttachmentUrl(image.sha256);
  const [open, setOpen] = useState(false);
  const thumbRef = useRef<HTMLButtonElement | null>(null);
  if (failed) {
    return (
      <p className="tool-image-missing" role="note">
        {t('tool.imageFailed', { alt })}
      </p>
    );
  }
  if (!url) {
    return (
      <span className="tool-image-loading" role="status">
        {t('tool.imageLoading', { alt })}
      </span>
    );
  }
  const close = () => {
    setOpen(false);
    thumbRef.current?.focus();
  };
  return (
    <>
      <button
        type="button"
        ref={thumbRef}
        className="tool-image-thumb"
        aria-label={t('tool.imageOpen', { alt })}
        onClick={() => setOpen(true)}
      >
        <img src={url} alt={alt} width={image.width} height={image.height} data-testid="tool-image" />
      </button>
      {open && <ImageViewer url={url} alt={alt} onClose={close} />}
    </>
  );
}

/** The images a tool returned, as thumbnails that open larger. */
export function ToolImages({ tool, result }: { tool: string; result: JsonValue | undefined }) {
  const { t } = useTranslation();
  const images = imagesOf(result);
  if (images.length === 0) return null;
  return (
    <>
      <h4 className="tool-card-heading">{t('tool.images')}</h4>
      <div className="tool-images" role="group" aria-label={t('tool.imagesOf', { name: tool })}>
        {images.map((image, i) => (
          <ToolImageThumb
            key={`${image.sha256}-${i}`}
            image={image}
            alt={image.name ? t('tool.imageAlt', { tool, name: image.name }) : t('tool.imageAltUnnamed', { tool, n: i + 1 })}
          />
        ))}
      </div>
    </>
  );
}
