/**
 * display_overlay: what the arguments ask for, checked (a note, or labelled boxes over an image
 * attachment), and the image fetched through the API and measured so the boxes, given in the
 * image's pixels, can be drawn in proportion at whatever size the image is shown.
 */
import type { TesseraClient } from '../transport/client';
import { OVERLAY_MAX_MS } from './definitions';
import { fail, isRecord, type Outcome } from './result';

export interface OverlayBox {
  x: number;
  y: number;
  width: number;
  height: number;
  label?: string;
}

export interface OverlaySpec {
  style: 'bounding_boxes' | 'note';
  note: string | null;
  boxes: OverlayBox[];
  sourceImageId: string | null;
  /** Closes by itself after this long; null: when the person closes it. */
  durationMs: number | null;
}

export interface ShownImage {
  sha256: string;
  url: string;
  width: number;
  height: number;
}

const SHA256 = /^[0-9a-f]{64}$/i;

function finite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** The arguments as an overlay to show, or the ERROR outcome saying what is wrong with them. */
export function parseOverlay(args: unknown): { spec: OverlaySpec } | { error: Outcome } {
  const bad = (message: string) => ({ error: fail('INVALID_ARGUMENTS', message) });
  if (!isRecord(args)) return bad('the arguments must be an object with `overlayData`');
  const data = args['overlayData'];
  const source = args['sourceImageId'];
  if (source !== undefined && source !== null && (typeof source !== 'string' || !SHA256.test(source))) {
    return bad('`sourceImageId` must be the sha256 (64 hex digits) of an image attachment');
  }
  const sourceImageId = typeof source === 'string' ? source.toLowerCase() : null;
  const style = args['style'] ?? (typeof data === 'string' ? 'note' : 'bounding_boxes');
  if (style !== 'note' && style !== 'bounding_boxes') return bad(`\`style\` must be bounding_boxes or note, not ${JSON.stringify(style)}`);
  let durationMs: number | null = null;
  const duration = args['duration'];
  if (duration !== undefined && duration !== null) {
    if (!finite(duration) || duration < 0) return bad('`duration` must be milliseconds (a number from 0)');
    durationMs = Math.min(Math.round(duration), OVERLAY_MAX_MS);
  }
  let note: string | null = null;
  const boxes: OverlayBox[] = [];
  if (typeof data === 'string') {
    if (!data.trim()) return bad('`overlayData` is an empty note');
    note = data;
  } else if (Array.isArray(data)) {
    for (const [i, item] of data.entries()) {
      if (!isRecord(item)) return bad(`overlayData[${i}] must be a box {x, y, width, height, label}`);
      const { x, y, width, height, label } = item;
      if (!finite(x) || !finite(y) || !finite(width) || !finite(height) || x < 0 || y < 0 || width <= 0 || height <= 0) {
        return bad(`overlayData[${i}] needs x and y from 0 and a width and height above 0, in the image's pixels`);
      }
      if (label !== undefined && typeof label !== 'string') return bad(`overlayData[${i}].label must be text`);
      boxes.push(label === undefined ? { x, y, width, height } : { x, y, width, height, label });
    }
  } else {
    return bad('`overlayData` must be a list of boxes or the text of a note');
  }
  if (style === 'bounding_boxes') {
    if (boxes.length === 0) return bad('bounding_boxes needs a list of boxes in `overlayData`');
    if (!sourceImageId) return bad('bounding_boxes needs `sourceImageId`, the image the boxes are drawn over');
  } else if (note === null) {
    return bad('a note needs its text as `overlayData`');
  }
  return { spec: { style, note, boxes, sourceImageId, durationMs } };
}

/** The image's own size in pixels, once the browser has decoded it. */
export function measureImage(url: string): Promise<{ width: number; height: number }> {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => resolve({ width: image.naturalWidth, height: image.naturalHeight });
    image.onerror = () => reject(new Error('the attachment is not an image this window can show'));
    image.src = url;
  });
}

/** Fetches attachment `sha256` and measures it; the caller revokes `url` when done. */
export async function loadImage(
  client: TesseraClient,
  sha256: string,
  measure: (url: string) => Promise<{ width: number; height: number }> = measureImage,
): Promise<ShownImage> {
  const blob = await client.getAttachment(sha256);
  if (blob.type && !blob.type.startsWith('image/')) throw new Error(`attachment ${sha256} is ${blob.type}, not an image`);
  const url = URL.createObjectURL(blob);
  try {
    const { width, height } = await measure(url);
    if (!(width > 0 && height > 0)) throw new Error(`attachment ${sha256} has no size to draw boxes on`);
    return { sha256, url, width, height };
  } catch (error) {
    URL.revokeObjectURL(url);
    throw error;
  }
}

/** A box as percentages of the image, so it scales with the image (clipped to it). */
export function boxPlacement(box: OverlayBox, image: { width: number; height: number }) {
  const pct = (v: number, of: number) => `${Math.max(0, Math.min(100, (v / of) * 100)).toFixed(3)}%`;
  const right = Math.min(box.x + box.width, image.width);
  const bottom = Math.min(box.y + box.height, image.height);
  return {
    left: pct(box.x, image.width),
    top: pct(box.y, image.height),
    width: pct(Math.max(0, right - box.x), image.width),
    height: pct(Math.max(0, bottom - box.y), image.height),
  };
}
