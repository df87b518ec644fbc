import { useId, useRef, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useModalFocus } from '../components/useModalFocus';
import { boxPlacement, type OverlaySpec, type ShownImage } from './overlay';

export interface OverlayDialogProps {
  spec: OverlaySpec;
  image: ShownImage | null;
  onClose: () => void;
}

/**
 * What display_overlay shows: a note, or an image with the model's boxes drawn over it in
 * proportion. A modal dialog: focus goes to Close and comes back where it was; Escape, Close
 * or a click outside closes it.
 */
export function OverlayDialog({ spec, image, onClose }: OverlayDialogProps) {
  const { t } = useTranslation();
  const titleId = useId();
  const closeRef = useRef<HTMLButtonElement | null>(null);

  useModalFocus(closeRef);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      onClose();
    } else if (event.key === 'Tab') {
      // Close is the only control: focus stays on it.
      event.preventDefault();
      closeRef.current?.focus();
    }
  };

  return (
    <div
      className="dialog-backdrop webtool-overlay-backdrop"
      onMouseDown={(event) => {
        if (event.target === event.currentTarget) onClose();
      }}
    >
      <div className="dialog webtool-overlay" role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid="webtool-overlay" onKeyDown={onKeyDown}>
        <h2 id={titleId} className="dialog-title">
          {t('webtools.overlayTitle')}
        </h2>
        {spec.note !== null && <p className="webtool-note">{spec.note}</p>}
        {image && (
          <figure className="webtool-figure">
            <div className="webtool-image-frame">
              <img src={image.url} alt={t('webtools.imageAlt')} width={image.width} height={image.height} />
              {spec.boxes.map((box, i) => (
                <div key={i} className="webtool-box" style={boxPlacement(box, image)} data-testid="webtool-box">
                  {box.label && <span className="webtool-box-label">{box.label}</span>}
                </div>
              ))}
            </div>
            {spec.boxes.length > 0 && (
              <figcaption className="visually-hidden">
                {t('webtools.boxesCaption', { count: spec.boxes.length, labels: spec.boxes.map((b) => b.label).filter(Boolean).join(', ') })}
              </figcaption>
            )}
          </figure>
        )}
        <div className="dialog-actions">
          <button ref={closeRef} type="button" className="button button-primary" onClick={onClose}>
            {t('webtools.close')}
          </button>
        </div>
      </div>
    </div>
  );
}
