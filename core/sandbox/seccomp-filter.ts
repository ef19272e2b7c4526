// The seccomp filter that keeps sandboxed commands off Unix sockets: the abstract ones of your session (the X
// server, D-Bus buses), reached through a shared network namespace, and socket files keel does not hide. A classic-BPF program
// over `struct seccomp_data` {int nr; u32 arch; u64 instruction_pointer; u64 args[6]}, as bwrap's `--seccomp FD` reads it.

/** `AUDIT_ARCH_*` values (linux/audit.h) of the system-call tables the filter knows. */
export const AUDIT_ARCH = { x86_64: 0xc000003e, i386: 0x40000003, aarch64: 0xc00000b7 } as const;

/** Bit set in an x32-ABI system call number on x86_64 (`__X32_SYSCALL_BIT`). */
const X32_SYSCALL_BIT = 0x40000000;
const AF_UNIX = 1;
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;
/** `SOCK_TYPE_MASK`: the type without `SOCK_NONBLOCK`/`SOCK_CLOEXEC`. */
const SOCK_TYPE_MASK = 0xf;

const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const EPERM = 1;

// Offsets into seccomp_data; an argument's low 32 bits come first on a little-endian machine.
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;
const ARG1_LOW = 24;

// Classic BPF opcodes (linux/filter.h).
const LD_W_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGE_K = 0x35; // BPF_JMP | BPF_JGE | BPF_K
const AND_K = 0x54; // BPF_ALU | BPF_AND | BPF_K
const RET_K = 0x06; // BPF_RET | BPF_K

/** System call numbers, per table, of what the filter checks (arch/x86/entry/syscalls/*.tbl, include/uapi/asm-generic/unistd.h). */
const TABLES = {
  x86_64: { socket: 41, socketpair: 53, io_uring_setup: 425 },
  i386: { socketcall: 102, socket: 359, socketpair: 360, io_uring_setup: 425 },
  aarch64: { socket: 198, socketpair: 199, io_uring_setup: 425 },
} as const;

/** One instruction before jumps are resolved: `jt`/`jf` name labels (or "next"). */
type Step = { label?: string; code: number; k: number; jt?: string; jf?: string };

const ld = (offset: number, label?: string): Step => ({ label, code: LD_W_ABS, k: offset });
const jeq = (k: number, jt: string, jf = "next"): Step => ({ code: JEQ_K, k, jt, jf });
const ret = (k: number, label: string): Step => ({ label, code: RET_K, k });

/** The program as steps: the arch first, then per table the calls that make or reach Unix sockets. */
function steps(): Step[] {
  const x = TABLES.x86_64;
  const i = TABLES.i386;
  const a = TABLES.aarch64;
  return [
    ld(ARCH),
    jeq(AUDIT_ARCH.x86_64, "x86_64"),
    jeq(AUDIT_ARCH.i386, "i386"),
    jeq(AUDIT_ARCH.aarch64, "aarch64", "kill"),
    ld(NR, "x86_64"),
    { code: JGE_K, k: X32_SYSCALL_BIT, jt: "eperm", jf: "next" },
    jeq(x.socket, "socket"),
    jeq(x.socketpair, "socketpair"),
    jeq(x.io_uring_setup, "eperm", "allow"),
    ld(NR, "i386"),
    // socketcall's arguments are in memory, which seccomp cannot read: refused whole (libc calls socket directly since Linux 4.3).
    jeq(i.socketcall, "eperm"),
    jeq(i.socket, "socket"),
    jeq(i.socketpair, "socketpair"),
    jeq(i.io_uring_setup, "eperm", "allow"),
    ld(NR, "aarch64"),
    jeq(a.socket, "socket"),
    jeq(a.socketpair, "socketpair"),
    jeq(a.io_uring_setup, "eperm", "allow"),
    ld(ARG0_LOW, "socket"),
    jeq(AF_UNIX, "eperm", "allow"),
    // A connected stream or seqpacket pair reaches nobody else (libuv's child stdio); a datagram pair can `sendto` any address.
    ld(ARG0_LOW, "socketpair"),
    jeq(AF_UNIX, "next", "allow"),
    ld(ARG1_LOW),
    { code: AND_K, k: SOCK_TYPE_MASK },
    jeq(SOCK_STREAM, "allow"),
    jeq(SOCK_SEQPACKET, "allow", "eperm"),
    ret(SECCOMP_RET_ALLOW, "allow"),
    ret(SECCOMP_RET_ERRNO | EPERM, "eperm"),
    ret(SECCOMP_RET_KILL_PROCESS, "kill"),
  ];
}

/**
 * The seccomp program (packed `struct sock_filter` entries, little-endian) that refuses with EPERM
 * creating Unix sockets (`socket(AF_UNIX, …)`, a `socketpair` of Unix datagrams), i386's `socketcall`,
 * x32 calls and `io_uring_setup` (an io_uring can open sockets past seccomp), allows everything else on
 * x86_64, i386 and aarch64, and kills a process of any other architecture.
 */
export function unixSocketFilter(): Buffer {
  const program = steps();
  const at = new Map(program.flatMap((s, pc) => (s.label ? [[s.label, pc] as const] : [])));
  const offset = (pc: number, to: string | undefined): number => {
    if (to === undefined || to === "next") return 0;
    const jump = at.get(to)! - pc - 1;
    if (!(jump >= 0 && jump <= 255)) throw new Error(`seccomp filter: jump to ${to} out of range`);
    return jump;
  };
  const out = Buffer.alloc(program.length * 8);
  program.forEach((s, pc) => {
    out.writeUInt16LE(s.code, pc * 8);
    out.writeUInt8(offset(pc, s.jt), pc * 8 + 2);
    out.writeUInt8(offset(pc, s.jf), pc * 8 + 3);
    out.writeUInt32LE(s.k >>> 0, pc * 8 + 4);
  });
  return out;
}

/**
 * Why this machine gets no filter (the filter is for little-endian x86_64 and aarch64, the tables above),
 * or undefined when it does.
 */
export function filterUnsupported(arch: string = process.arch, endianness: "BE" | "LE" = "LE"): string | undefined {
  if ((arch === "x64" || arch === "arm64") && endianness === "LE") return undefined;
  return `keel has no seccomp filter for this machine (${arch}, ${endianness === "LE" ? "little" : "big"}-endian), so it cannot keep sandboxed commands off Unix sockets`;
}
