/**
 * The framing of the channel between a worker and its sandbox children: each message is a marker
 * byte, a 4-byte big-endian length and that many bytes of JSON text. Both sides import this file,
 * so it imports nothing: the child may read only its runtime files and its bundle.
 *
 * Why not Node's own IPC channel: its parser throws outside any handler on a line that is not JSON
 * and buffers a line without newline without bound, so one `writeSync(3, "}\n")` of workflow code
 * took the whole platform down. Here every byte is read by a decoder that holds at most one frame
 * and reports what is wrong as a value.
 */

/** The first byte of every frame: bytes that do not start with it are not a frame. */
export const frameMarker = 0xf7;
export const frameHeaderBytes = 5;

// Taken when this module loads, before the bundle: user code may replace the globals, not these.
const { concat, alloc, from } = Buffer;
const decodeText = (bytes: Buffer): string => bytes.toString("utf8");

/** One frame for `text` (JSON), header included. */
export function encodeFrame(text: string): Buffer {
  const body = from(text, "utf8");
  const header = alloc(frameHeaderBytes);
  header[0] = frameMarker;
  header.writeUInt32BE(body.length, 1);
  return concat([header, body]);
}

export type DecodedFrames =
  | { ok: true; frames: string[] }
  /** What is wrong with the bytes; the frames complete before them are still given. */
  | { ok: false; frames: string[]; problem: string };

export interface FrameDecoder {
  /** Takes the next bytes read; never throws. After a problem, every later push reports it again. */
  push(chunk: Uint8Array): DecodedFrames;
  /** Bytes held, waiting for the rest of their frame. */
  buffered(): number;
}

function describeBytes(bytes: Uint8Array): string {
  const shown = Array.from(bytes.subarray(0, 8), (byte) => byte.toString(16).padStart(2, "0")).join(" ");
  return bytes.length > 8 ? `${shown} …` : shown;
}

/**
 * Cuts a byte stream into frames of at most `maxFrameBytes` bytes of text. It holds at most one
 * frame's bytes: a header announcing more is refused before any of the body is kept.
 */
export function createFrameDecoder(maxFrameBytes: number): FrameDecoder {
  // Unread bytes: `chunks` from `offset` into the first one. A frame in one chunk is cut out of it
  // without a copy; one spread over several is copied once, when it is complete.
  let chunks: Buffer[] = [];
  let offset = 0;
  let held = 0;
  let broken: string | undefined;

  function take(count: number): Buffer {
    const first = chunks[0] ?? alloc(0);
    if (first.length - offset >= count) {
      const taken = first.subarray(offset, offset + count);
      offset += count;
      if (offset === first.length) {
        chunks.shift();
        offset = 0;
      }
      held -= count;
      return taken;
    }
    const joined = concat([first.subarray(offset), ...chunks.slice(1)], held);
    chunks = held > count ? [joined.subarray(count)] : [];
    offset = 0;
    held -= count;
    return joined.subarray(0, count);
  }

  function fail(problem: string, frames: string[]): DecodedFrames {
    broken = problem;
    chunks = [];
    held = 0;
    return { ok: false, frames, problem };
  }

  return {
    push(chunk) {
      const frames: string[] = [];
      if (broken !== undefined) return { ok: false, frames, problem: broken };
      try {
        if (chunk.length === 0) return { ok: true, frames };
        chunks.push(from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        held += chunk.length;
        while (held > 0) {
          const first = chunks[0];
          if (first !== undefined && first[offset] !== frameMarker) {
            return fail(`bytes that are not a frame (${describeBytes(first.subarray(offset))})`, frames);
          }
          if (held < frameHeaderBytes) break;
          if (first !== undefined && first.length - offset < frameHeaderBytes) {
            chunks = [concat([first.subarray(offset), ...chunks.slice(1)], held)];
            offset = 0;
          }
          const length = (chunks[0] ?? alloc(frameHeaderBytes)).readUInt32BE(offset + 1);
          if (length > maxFrameBytes)
            return fail(`a frame of ${length} bytes, over the limit of ${maxFrameBytes}`, frames);
          if (held < frameHeaderBytes + length) break;
          take(frameHeaderBytes);
          frames.push(decodeText(take(length)));
        }
        return { ok: true, frames };
      } catch (error) {
        return fail(`bytes that could not be read (${error instanceof Error ? error.message : "unknown"})`, frames);
      }
    },
    buffered: () => held,
  };
}
