/**
 * Avatar image payloads: a base64 data URL of a JPEG, PNG, WebP or GIF image of at most 200 KB
 * after decoding. The type is read from the bytes themselves, because the label of a data URL is
 * whatever the client wrote, and the bytes are served back to every member of the hub.
 */
import { badRequest } from '../../kernel/errors.ts';

/** Largest decoded image, in bytes (200 KB). */
export const AVATAR_MAX_BYTES = 204_800;

/** A checked image: its MIME type and its bytes as base64 (the storage form). */
export interface AvatarImage {
  mime: string;
  base64: string;
}

const SUPPORTED = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'] as const;
type SupportedMime = (typeof SUPPORTED)[number];

const DATA_URL = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)((?:;[^;,]*)*?);base64,(.*)$/is;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const ascii = (bytes: Uint8Array, from: number, text: string) =>
  [...text].every((ch, i) => bytes[from + i] === ch.charCodeAt(0));

/** The image type the bytes start with, or null when they are none of the four. */
export function sniffImageType(bytes: Uint8Array): SupportedMime | null {
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (
    bytes.length >= 8 &&
    ascii(bytes, 1, 'PNG') &&
    bytes[0] === 0x89 &&
    bytes[4] === 0x0d &&
    bytes[5] === 0x0a &&
    bytes[6] === 0x1a &&
    bytes[7] === 0x0a
  )
    return 'image/png';
  if (ascii(bytes, 0, 'GIF87a') || ascii(bytes, 0, 'GIF89a')) return 'image/gif';
  if (bytes.length >= 12 && ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WEBP')) return 'image/webp';
  return null;
}

/** Base64 to bytes with Web APIs only, so the same code runs on Node and Deno. */
export function decodeBase64(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Checks a data URL and returns the image, or throws a 400 whose message starts with `field`.
 * `image/jpg` is accepted as `image/jpeg` (some encoders write it).
 */
export function parseAvatarImage(raw: string, field: string): AvatarImage {
  const fail = (message: string) => badRequest(`${field}: ${message}`);
  const match = DATA_URL.exec(raw.trim());
  if (!match) throw fail('Avatar image must be a base64 image data URL.');
  let mime = match[1]!.toLowerCase();
  if (mime === 'image/jpg') mime = 'image/jpeg';
  if (!(SUPPORTED as readonly string[]).includes(mime)) {
    throw fail(
      `Avatar image type "${mime.slice(0, 100)}" is not supported. Use JPEG, PNG, WebP, or GIF.`,
    );
  }
  // Line breaks are allowed inside base64 (some encoders wrap it); nothing else is.
  const base64 = match[3]!.replace(/[\t\n\r ]/g, '');
  if (base64.replace(/=+$/, '') === '') throw fail('Avatar image payload is empty.');
  // Refuse oversized payloads before decoding them: 4 base64 characters carry 3 bytes.
  if (Math.floor((base64.replace(/=+$/, '').length * 3) / 4) > AVATAR_MAX_BYTES) {
    throw fail(`Avatar image exceeds the maximum size of ${AVATAR_MAX_BYTES} bytes.`);
  }
  if (!BASE64.test(base64) || base64.replace(/=+$/, '').length % 4 === 1)
    throw fail('Avatar image must be a base64 image data URL.');
  let bytes: Uint8Array;
  try {
    bytes = decodeBase64(base64);
  } catch {
    throw fail('Avatar image must be a base64 image data URL.');
  }
  const actual = sniffImageType(bytes);
  if (actual === null) throw fail('Avatar image content is not a JPEG, PNG, WebP, or GIF image.');
  if (actual !== mime)
    throw fail(`Avatar image content is ${actual}, not the declared type "${mime}".`);
  return { mime, base64 };
}
