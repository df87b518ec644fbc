/**
 * The front-end tools the web UI runs itself (seed 000 §4.5.5): they only change what the
 * person sees, so they need no consent (permissionLevel NONE). Announced with
 * CLIENT_CAPABILITIES (§4.7.1) for the conversation shown; the engine offers them to the model
 * and hands their calls back as `tool/tool_call` events with runtime FRONTEND.
 */
import type { ClientCapabilities } from '../generated/ClientCapabilities';
import type { FallbackBehavior } from '../generated/FallbackBehavior';
import type { PermissionLevel } from '../generated/PermissionLevel';
import type { Runtime } from '../generated/Runtime';
import type { SupportedTool } from '../generated/SupportedTool';
import type { JsonValue } from '../generated/serde_json/JsonValue';

/** One id for every copy of the UI: whichever window shows the conversation answers its calls. */
export const WEB_CLIENT_ID = 'tessera-ui';

/** The longest selector highlight_element takes. */
export const MAX_SELECTOR_CHARS = 200;
export const HIGHLIGHT_ELEMENT = 'highlight_element';
export const DISPLAY_OVERLAY = 'display_overlay';
export type WebToolName = typeof HIGHLIGHT_ELEMENT | typeof DISPLAY_OVERLAY;

export const HIGHLIGHT_DEFAULT_MS = 3_000;
export const HIGHLIGHT_MAX_MS = 30_000;
export const OVERLAY_MAX_MS = 120_000;

/**
 * The §4.5.1 definition fields the engine reads beside `toolId` (the generated SupportedTool
 * keeps them as unknown fields, so they are typed here).
 */
export type WebToolDefinition = SupportedTool & {
  toolId: WebToolName;
  description: string;
  parameters: { [key: string]: JsonValue };
  permissionLevel: PermissionLevel;
  runtime: Extract<Runtime, 'FRONTEND'>;
  /** Seconds the engine waits for the answer. */
  timeout: number;
  fallbackBehavior: FallbackBehavior;
};

// Cosmetic tools: when no window answers (none open), the run goes on without them.
const FALLBACK: FallbackBehavior = 'SKIP';
const TIMEOUT_S = 20;

export const WEB_TOOLS: readonly WebToolDefinition[] = [
  {
    toolId: HIGHLIGHT_ELEMENT,
    version: '1.0.0',
    runtime: 'FRONTEND',
    description:
      'Highlights one element of the Tessera window the person is looking at (the chat app itself), to show them where something is. ' +
      'The element is the first one matching a CSS selector; it is scrolled into view. Returns only whether it was found.',
    parameters: {
      type: 'object',
      properties: {
        selector: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_SELECTOR_CHARS,
          description: 'A CSS selector of an element of the Tessera UI, e.g. "#composer-input" (no :has() or pseudo-elements).',
        },
        style: { type: 'string', enum: ['pulse', 'outline', 'dim-others'], default: 'pulse', description: 'How it is highlighted.' },
        duration: { type: 'integer', minimum: 0, maximum: HIGHLIGHT_MAX_MS, default: HIGHLIGHT_DEFAULT_MS, description: 'Milliseconds the highlight stays.' },
      },
      required: ['selector'],
      additionalProperties: false,
    },
    permissionLevel: 'NONE',
    timeout: TIMEOUT_S,
    fallbackBehavior: FALLBACK,
  },
  {
    toolId: DISPLAY_OVERLAY,
    version: '1.0.0',
    runtime: 'FRONTEND',
    description:
      'Shows the person an overlay they can close: an image another tool returned (its attachment sha256) with labelled boxes drawn over it, ' +
      'or a short text note. Box coordinates are in the image’s pixels.',
    parameters: {
      type: 'object',
      properties: {
        sourceImageId: { type: 'string', pattern: '^[0-9a-fA-F]{64}$', description: 'The sha256 of an image attachment (needed for bounding_boxes).' },
        overlayData: {
          description: 'Boxes to draw over the image, or the text of a note.',
          anyOf: [
            { type: 'string', minLength: 1 },
            {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  x: { type: 'number', minimum: 0 },
                  y: { type: 'number', minimum: 0 },
                  width: { type: 'number', exclusiveMinimum: 0 },
                  height: { type: 'number', exclusiveMinimum: 0 },
                  label: { type: 'string' },
                },
                required: ['x', 'y', 'width', 'height'],
              },
            },
          ],
        },
        style: { type: 'string', enum: ['bounding_boxes', 'note'], description: 'Boxes over the image, or a note.' },
        duration: { type: 'integer', minimum: 0, maximum: OVERLAY_MAX_MS, description: 'Milliseconds before it closes by itself; without it, it stays until the person closes it.' },
      },
      required: ['overlayData'],
      additionalProperties: false,
    },
    permissionLevel: 'NONE',
    timeout: TIMEOUT_S,
    fallbackBehavior: FALLBACK,
  },
];

export function isWebTool(name: string): name is WebToolName {
  return name === HIGHLIGHT_ELEMENT || name === DISPLAY_OVERLAY;
}

/** The CLIENT_CAPABILITIES content this UI announces. */
export function webCapabilities(): ClientCapabilities {
  return {
    clientId: WEB_CLIENT_ID,
    deviceType: 'desktop',
    platform: typeof navigator !== 'undefined' ? navigator.platform || 'web' : 'web',
    version: '1.0.0',
    supportedTools: [...WEB_TOOLS],
    supportedFeatures: ['ui_highlight', 'overlay'],
  };
}
