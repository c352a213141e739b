/** The parts of a WebAssembly binary that naming one of its functions needs. */
export interface WasmBinaryLayout {
  /** Functions imported, which come first in the function index space. */
  importedFunctions: number;
  /** Functions defined in the module, which its code section holds. */
  definedFunctions: number;
  /** Where the code section starts (its id byte): a custom section placed here precedes it. */
  codeSectionOffset: number;
  /** Each defined function's body, as [start, end) offsets into the binary. */
  bodies: Array<[number, number]>;
  /** Active data segments at constant addresses: the address and the bytes' [start, end). */
  dataSegments: Array<{ address: number; start: number; end: number }>;
}

const sectionIds = { import: 2, function: 3, code: 10, data: 11 } as const;
const importKinds = { function: 0, table: 1, memory: 2, global: 3, tag: 4 } as const;

class Reader {
  readonly bytes: Uint8Array;
  offset: number;

  constructor(bytes: Uint8Array, offset: number) {
    this.bytes = bytes;
    this.offset = offset;
  }

  byte(): number {
    if (this.offset >= this.bytes.length) throw new RangeError("unexpected end of the binary");
    return this.bytes[this.offset++] as number;
  }

  /** An unsigned LEB128 integer of at most 32 bits, as the binary's counts and sizes are. */
  unsigned(): number {
    return this.#integer(false);
  }

  /** A signed LEB128 integer of at most 32 bits, as an `i32.const` holds. */
  signed(): number {
    return this.#integer(true);
  }

  #integer(signed: boolean): number {
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const byte = this.byte();
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) {
        if (signed && (byte & 0x40) !== 0) result -= 2 ** (shift + 7);
        const [least, most] = signed ? [-(2 ** 31), 2 ** 31 - 1] : [0, 0xffff_ffff];
        if (result >= least && result <= most) return result;
        break;
      }
    }
    throw new RangeError("an integer longer than 32 bits");
  }

  skip(length: number): void {
    this.offset += length;
  }

  skipName(): void {
    this.skip(this.unsigned());
  }

  skipLimits(): void {
    const flags = this.byte();
    this.unsigned();
    if ((flags & 1) !== 0) this.unsigned();
  }
}

function readImports(reader: Reader): number {
  let functions = 0;
  const count = reader.unsigned();
  for (let index = 0; index < count; index++) {
    reader.skipName();
    reader.skipName();
    const kind = reader.byte();
    if (kind === importKinds.function) {
      reader.unsigned();
      functions += 1;
    } else if (kind === importKinds.table) {
      reader.byte();
      reader.skipLimits();
    } else if (kind === importKinds.memory) {
      reader.skipLimits();
    } else if (kind === importKinds.global) {
      reader.skip(2);
    } else if (kind === importKinds.tag) {
      reader.byte();
      reader.unsigned();
    } else {
      throw new RangeError(`an import of unknown kind ${kind}`);
    }
  }
  return functions;
}

function readBodies(reader: Reader): Array<[number, number]> {
  const bodies: Array<[number, number]> = [];
  const count = reader.unsigned();
  for (let index = 0; index < count; index++) {
    const size = reader.unsigned();
    bodies.push([reader.offset, reader.offset + size]);
    reader.skip(size);
  }
  return bodies;
}

const i32Const = 0x41;
const end = 0x0b;

/** Active segments and where they are placed; passive ones are left out. */
function readDataSegments(reader: Reader): WasmBinaryLayout["dataSegments"] {
  const segments: WasmBinaryLayout["dataSegments"] = [];
  const count = reader.unsigned();
  for (let index = 0; index < count; index++) {
    const flags = reader.unsigned();
    if (flags === 2) reader.unsigned();
    let address: number | undefined;
    if (flags !== 1) {
      const opcode = reader.byte();
      if (opcode !== i32Const) throw new RangeError("a data segment placed by other than an i32.const");
      address = reader.signed();
      if (reader.byte() !== end) throw new RangeError("a data segment's address is not a constant");
    }
    const length = reader.unsigned();
    if (address !== undefined) segments.push({ address, start: reader.offset, end: reader.offset + length });
    reader.skip(length);
  }
  return segments;
}

const preamble = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

/** Reads the layout of a WebAssembly binary; throws a RangeError on one it cannot read. */
export function readWasmLayout(bytes: Uint8Array): WasmBinaryLayout {
  if (preamble.some((byte, index) => bytes[index] !== byte)) throw new RangeError("not a WebAssembly binary");
  const reader = new Reader(bytes, preamble.length);
  const layout: WasmBinaryLayout = {
    importedFunctions: 0,
    definedFunctions: 0,
    codeSectionOffset: -1,
    bodies: [],
    dataSegments: [],
  };
  while (reader.offset < bytes.length) {
    const sectionOffset = reader.offset;
    const id = reader.byte();
    const size = reader.unsigned();
    const sectionEnd = reader.offset + size;
    if (sectionEnd > bytes.length) throw new RangeError("a section runs past the end of the binary");
    if (id === sectionIds.import) layout.importedFunctions = readImports(reader);
    else if (id === sectionIds.function) layout.definedFunctions = reader.unsigned();
    else if (id === sectionIds.code) {
      layout.codeSectionOffset = sectionOffset;
      layout.bodies = readBodies(reader);
    } else if (id === sectionIds.data) layout.dataSegments = readDataSegments(reader);
    if (reader.offset > sectionEnd) throw new RangeError(`section ${id} runs past its size`);
    reader.offset = sectionEnd;
  }
  if (layout.codeSectionOffset < 0 || layout.bodies.length !== layout.definedFunctions) {
    throw new RangeError("the binary has no code section matching its function section");
  }
  return layout;
}

/** A 32-bit integer as the signed LEB128 an `i32.const` immediate holds. */
export function signedLeb128(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value | 0;
  for (;;) {
    const low = rest & 0x7f;
    rest >>= 7;
    const done = (rest === 0 && (low & 0x40) === 0) || (rest === -1 && (low & 0x40) !== 0);
    bytes.push(done ? low : low | 0x80);
    if (done) return Buffer.from(bytes);
  }
}

/** An unsigned integer as LEB128. */
export function unsignedLeb128(value: number): Buffer {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not an unsigned integer: ${value}`);
  const bytes: number[] = [];
  let rest = value;
  do {
    const low = rest % 128;
    rest = Math.floor(rest / 128);
    bytes.push(rest === 0 ? low : low | 0x80);
  } while (rest !== 0);
  return Buffer.from(bytes);
}

/**
 * The indices of the functions whose code loads the address of `text`, a NUL-terminated string
 * of the binary's data (such as the `__func__` of a C function, which its error reports name).
 */
export function functionsNaming(bytes: Buffer, layout: WasmBinaryLayout, text: string): number[] {
  const needle = Buffer.from(`\0${text}\0`, "latin1");
  const functions = new Set<number>();
  for (const segment of layout.dataSegments) {
    const at = bytes.subarray(segment.start, segment.end).indexOf(needle);
    if (at < 0) continue;
    const load = Buffer.concat([Buffer.from([i32Const]), signedLeb128(segment.address + at + 1)]);
    for (let found = bytes.indexOf(load); found >= 0; found = bytes.indexOf(load, found + 1)) {
      const body = layout.bodies.findIndex(([start, stop]) => found >= start && found < stop);
      if (body >= 0) functions.add(layout.importedFunctions + body);
    }
  }
  return [...functions];
}
