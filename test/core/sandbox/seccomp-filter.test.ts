import { describe, expect, it } from "vitest";
import { AUDIT_ARCH, filterUnsupported, unixSocketFilter } from "../../../core/sandbox/seccomp-filter.js";

/**
 * Runs the classic-BPF program the way the kernel's seccomp does, for the instructions it uses (32-bit
 * loads from seccomp_data, JEQ/JGE/AND with constants, RET): the action for one system call.
 */
function run(program: Buffer, call: { arch: number; nr: number; args?: number[] }): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(call.nr, 0);
  data.writeUInt32LE(call.arch, 4);
  (call.args ?? []).forEach((a, i) => data.writeBigUInt64LE(BigInt(a), 16 + 8 * i));
  let acc = 0;
  for (let pc = 0; pc * 8 < program.length; pc++) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) acc = data.readUInt32LE(k);
    else if (code === 0x54) acc = (acc & k) >>> 0;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected opcode ${code.toString(16)} at ${pc}`);
  }
  throw new Error("fell off the end of the program");
}

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const KILL = 0x80000000;
const AF_UNIX = 1;
const AF_INET = 2;
const STREAM = 1;
const DGRAM = 2;
const SEQPACKET = 5;
const NONBLOCK_CLOEXEC = 0o4000 | 0o2000000;

describe("the seccomp filter's program", () => {
  const program = unixSocketFilter();
  const x86 = (nr: number, ...args: number[]) => run(program, { arch: AUDIT_ARCH.x86_64, nr, args });
  const i386 = (nr: number, ...args: number[]) => run(program, { arch: AUDIT_ARCH.i386, nr, args });
  const arm = (nr: number, ...args: number[]) => run(program, { arch: AUDIT_ARCH.aarch64, nr, args });

  it("is packed sock_filter entries that all end in a return", () => {
    expect(program.length % 8).toBe(0);
    expect(program.readUInt16LE(0)).toBe(0x20); // loads seccomp_data.arch first
    expect(program.readUInt32LE(4)).toBe(4);
  });

  it("x86_64: refuses AF_UNIX sockets, datagram pairs, x32 calls and io_uring; allows the rest", () => {
    expect(x86(41, AF_UNIX, STREAM)).toBe(EPERM);
    expect(x86(41, AF_UNIX, DGRAM)).toBe(EPERM);
    expect(x86(41, 0x1_0000_0000 + AF_UNIX, STREAM)).toBe(EPERM); // only the low 32 bits are the int the kernel reads
    expect(x86(41, AF_INET, STREAM)).toBe(ALLOW);
    expect(x86(53, AF_UNIX, STREAM | NONBLOCK_CLOEXEC)).toBe(ALLOW);
    expect(x86(53, AF_UNIX, SEQPACKET)).toBe(ALLOW);
    expect(x86(53, AF_UNIX, DGRAM | NONBLOCK_CLOEXEC)).toBe(EPERM);
    expect(x86(425)).toBe(EPERM);
    expect(x86(0x40000000 + 41, AF_INET, STREAM)).toBe(EPERM);
    for (const nr of [0, 1, 42, 59, 102, 359, 198]) expect(x86(nr, AF_UNIX, DGRAM)).toBe(ALLOW); // read, write, connect, execve, and other tables' numbers
  });

  it("i386 on x86_64: socketcall refused whole; socket and socketpair as on x86_64; io_uring refused", () => {
    expect(i386(102, 1)).toBe(EPERM);
    expect(i386(359, AF_UNIX, STREAM)).toBe(EPERM);
    expect(i386(359, AF_INET, STREAM)).toBe(ALLOW);
    expect(i386(360, AF_UNIX, STREAM)).toBe(ALLOW);
    expect(i386(360, AF_UNIX, DGRAM)).toBe(EPERM);
    expect(i386(425)).toBe(EPERM);
    expect(i386(41, AF_UNIX, STREAM)).toBe(ALLOW); // 41 is dup on i386
  });

  it("aarch64: socket 198, socketpair 199, io_uring_setup 425", () => {
    expect(arm(198, AF_UNIX, STREAM)).toBe(EPERM);
    expect(arm(198, AF_INET, DGRAM)).toBe(ALLOW);
    expect(arm(199, AF_UNIX, STREAM)).toBe(ALLOW);
    expect(arm(199, AF_UNIX, DGRAM)).toBe(EPERM);
    expect(arm(425)).toBe(EPERM);
    expect(arm(41, AF_UNIX, STREAM)).toBe(ALLOW);
  });

  it("kills a process of any other architecture (32-bit ARM, x32 has no arch of its own)", () => {
    expect(run(program, { arch: 0x40000028, nr: 281, args: [AF_UNIX, STREAM] })).toBe(KILL);
    expect(run(program, { arch: 0, nr: 0 })).toBe(KILL);
  });

  it("exists for little-endian x64 and arm64 only; elsewhere the reason says what to do", () => {
    expect(filterUnsupported("x64", "LE")).toBeUndefined();
    expect(filterUnsupported("arm64", "LE")).toBeUndefined();
    expect(filterUnsupported("riscv64", "LE")).toMatch(/no seccomp filter for this machine \(riscv64/);
    expect(filterUnsupported("arm64", "BE")).toMatch(/big-endian/);
  });
});
