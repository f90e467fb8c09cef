import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { access, mkdir, readdir, readFile, rmdir, stat, statfs, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findExecutable } from './run-process';
import { ToolError } from './tool-error';

/**
 * What one command (with every process it starts) may use. bubblewrap has no limits of its own:
 * without these a fork bomb or a memory hog runs until the command's timeout and can take the
 * machine down first.
 */
export interface ResourceLimits {
  /**
   * Processes and threads of the command together. A cgroup (`pids.max`) where the runner may
   * create one (root, or a delegated cgroup); otherwise `RLIMIT_NPROC` inside the sandbox (a
   * user namespace of its own: the count is the command's alone). Default 1024.
   */
  maxProcesses?: number;
  /**
   * Memory of the command: of all its processes together in a cgroup (`memory.max`, no swap);
   * without a cgroup's memory controller, of each process (`RLIMIT_DATA`, which counts writable
   * memory a runtime maps but does not use: Node 24 needs ~550 MiB of it to start). Default the
   * smaller of 8 GiB and half the machine's memory.
   */
  maxMemoryBytes?: number;
  /** CPU time of each process, in seconds (`RLIMIT_CPU`). Default 900. */
  maxCpuSeconds?: number;
  /** Size of any one file a process writes (`RLIMIT_FSIZE`). Default 4 GiB. */
  maxFileBytes?: number;
  /**
   * Disk space the command may take, all files together, on the file system of the workspace
   * (and of each writable folder), and never more than half of what was free when it started: the
   * free space is watched while it runs ({@link diskWatch}) and a command past it is killed. Also
   * the bound of any one file (`RLIMIT_FSIZE`) when smaller than `maxFileBytes`. Default 16 GiB.
   */
  maxDiskBytes?: number;
}

/** The limits every command runs with unless the runner is given others (or `false`). */
export const defaultResourceLimits: Readonly<Required<ResourceLimits>> = Object.freeze({
  maxProcesses: 1024,
  maxMemoryBytes: Math.min(8 * 1024 ** 3, Math.floor(os.totalmem() / 2)),
  maxCpuSeconds: 900,
  maxFileBytes: 4 * 1024 ** 3,
  maxDiskBytes: 16 * 1024 ** 3,
});

/**
 * Merges `limits` over the defaults; `false` is no limits. Throws `ToolError('invalid-definition')`
 * on a value that is not a positive integer.
 */
export function resolveResourceLimits(
  limits: ResourceLimits | false | undefined,
): Required<ResourceLimits> | undefined {
  if (limits === false) return undefined;
  const resolved = { ...defaultResourceLimits, ...limits };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new ToolError({
        code: 'invalid-definition',
        message: `limits.${name} must be a positive integer, got ${JSON.stringify(value)}.`,
      });
  }
  return resolved;
}

/** A cgroup made for one command: its `cgroup.procs` files, one per hierarchy. */
export interface LimitGroup {
  procs: string[];
  /**
   * The group bounds the memory of all the command's processes together: then no per-process
   * `RLIMIT_DATA` is set (it counts memory a runtime only maps — Node 24 does not start below
   * ~550 MiB of it — so it would refuse programs the group would let run).
   */
  boundsMemory: boolean;
  /** The group bounds the number of the command's processes (`pids.max`). */
  boundsProcesses: boolean;
  /** Kills what is left in the group and removes it. */
  release(): Promise<void>;
}

interface Hierarchy {
  /** The folder of our own cgroup in this hierarchy. */
  base: string;
  /** The files to write in a new child (name → value), given the limits. */
  settings(limits: Required<ResourceLimits>): Record<string, string>;
  /** The file that must exist in a child for the controller to be there. */
  probe: string;
}

let hierarchies: Promise<Hierarchy[]> | undefined;

/** The cgroup files that bound a group's memory (v2, v1). */
const memoryLimitFiles = new Set(['memory.max', 'memory.limit_in_bytes']);

/** The cgroup hierarchies (v2, or v1 `pids` and `memory`) whose own cgroup we may make children in. */
function findHierarchies(): Promise<Hierarchy[]> {
  hierarchies ??= (async () => {
    if (process.platform !== 'linux') return [];
    const text = await readFile('/proc/self/cgroup', 'utf8').catch(() => '');
    const lines = text.split('\n').map((line) => line.split(':'));
    const own = (controller: string) =>
      lines
        .find((parts) => parts[1] === controller)
        ?.slice(2)
        .join(':');
    const out: Hierarchy[] = [];
    const v2 = own('');
    const unified = await access('/sys/fs/cgroup/cgroup.controllers').then(
      () => true,
      () => false,
    );
    if (unified && v2 !== undefined) {
      out.push({
        base: path.join('/sys/fs/cgroup', v2),
        probe: 'pids.max',
        settings: (limits) => ({
          'pids.max': String(limits.maxProcesses),
          'memory.max': String(limits.maxMemoryBytes),
          'memory.swap.max': '0',
        }),
      });
    } else {
      const pids = own('pids');
      if (pids !== undefined)
        out.push({
          base: path.join('/sys/fs/cgroup/pids', pids),
          probe: 'pids.max',
          settings: (limits) => ({ 'pids.max': String(limits.maxProcesses) }),
        });
      const memory = own('memory');
      if (memory !== undefined)
        out.push({
          base: path.join('/sys/fs/cgroup/memory', memory),
          probe: 'memory.limit_in_bytes',
          settings: (limits) => ({
            'memory.limit_in_bytes': String(limits.maxMemoryBytes),
            'memory.memsw.limit_in_bytes': String(limits.maxMemoryBytes),
          }),
        });
    }
    // Groups left by runners that died (a crash between making and removing one): empty ones go.
    for (const hierarchy of out) {
      const names = await readdir(hierarchy.base).catch(() => [] as string[]);
      for (const name of names) {
        const pid = /^closedloop-(\d+)-/.exec(name)?.[1];
        if (pid === undefined || isAlive(Number(pid))) continue;
        await rmdir(path.join(hierarchy.base, name)).catch(() => {});
      }
    }
    return out;
  })();
  return hierarchies;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function killAndRemove(folder: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const procs = await readFile(path.join(folder, 'cgroup.procs'), 'utf8').catch(() => undefined);
    if (procs === undefined) return;
    for (const pid of procs.split('\n').filter((line) => line !== '')) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone
      }
    }
    try {
      await rmdir(folder);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/**
 * Makes a cgroup with `limits` in every hierarchy where that is allowed (a limit a hierarchy
 * cannot set is left to the rlimits). Undefined when none could be made.
 */
export async function createLimitGroup(limits: Required<ResourceLimits>): Promise<LimitGroup | undefined> {
  const made: string[] = [];
  let boundsMemory = false;
  let boundsProcesses = false;
  for (const hierarchy of await findHierarchies()) {
    const folder = path.join(hierarchy.base, `closedloop-${process.pid}-${randomUUID().slice(0, 8)}`);
    try {
      await mkdir(folder);
    } catch {
      continue;
    }
    try {
      await access(path.join(folder, hierarchy.probe));
      let memory = false;
      let processes = false;
      for (const [name, value] of Object.entries(hierarchy.settings(limits))) {
        // memsw / swap files exist only with swap accounting on; memory.max only where the
        // memory controller is enabled for our children.
        const written = await writeFile(path.join(folder, name), value).then(
          () => true,
          (error: NodeJS.ErrnoException) => {
            if (error.code !== 'ENOENT') throw error;
            return false;
          },
        );
        if (written && memoryLimitFiles.has(name)) memory = true;
        if (written && name === 'pids.max') processes = true;
      }
      made.push(folder);
      if (memory) boundsMemory = true;
      if (processes) boundsProcesses = true;
    } catch {
      await rmdir(folder).catch(() => {});
    }
  }
  if (made.length === 0) return undefined;
  return {
    procs: made.map((folder) => path.join(folder, 'cgroup.procs')),
    boundsMemory,
    boundsProcesses,
    release: async () => {
      await Promise.all(made.map(killAndRemove));
    },
  };
}

let prlimitPath: Promise<string | undefined> | undefined;

/** util-linux's `prlimit`, which sets the rlimits of the program it runs. */
function findPrlimit(): Promise<string | undefined> {
  prlimitPath ??= findExecutable('prlimit', {
    pathVariable: `${process.env.PATH ?? ''}${path.delimiter}/usr/bin:/bin`,
  });
  return prlimitPath;
}

/**
 * The prefix that bounds the processes of a sandboxed command inside its sandbox: `prlimit
 * --nproc` there, where the sandbox's own user namespace makes `RLIMIT_NPROC` count the command's
 * processes alone (outside, it would count all of the user's). Empty for root, whom the kernel
 * exempts from `RLIMIT_NPROC` (a cgroup bounds root's commands), and without `prlimit`.
 */
export async function processLimitPrefix(limits: Required<ResourceLimits>): Promise<string[]> {
  if (process.getuid?.() === 0) return [];
  const prlimit = await findPrlimit();
  return prlimit === undefined ? [] : [prlimit, `--nproc=${limits.maxProcesses}`, '--'];
}

let unsharePath: Promise<string | undefined> | undefined;

/** Processes a sandbox adds to the command's own in the pid namespace: bubblewrap and its init. */
const SANDBOX_PROCESSES = 3;

/** The smallest `pid_max` the kernel takes (`RESERVED_PIDS + 1`). */
const MIN_PID_MAX = 301;

/**
 * Whether the kernel keeps `pid_max` per pid namespace (Linux 6.14): written in a new namespace,
 * it bounds that namespace alone. On an older kernel it is global — writing it would bound the
 * whole machine — so it is never written there.
 */
export function hasPidMaxPerNamespace(release = os.release()): boolean {
  const [major, minor] = (/^(\d+)\.(\d+)/.exec(release) ?? []).slice(1).map(Number);
  if (major === undefined || minor === undefined) return false;
  return major > 6 || (major === 6 && minor >= 14);
}

/**
 * The prefix that bounds a command's processes for root when no cgroup does (the kernel exempts
 * root from `RLIMIT_NPROC`), sandboxed or not: util-linux's `unshare` starts a pid namespace of its
 * own whose `pid_max` a shell sets before it becomes bubblewrap (or the command). Every process
 * and thread of the command needs a pid in that namespace too, so it can never hold more than
 * `maxProcesses` of them (at least ~300: the kernel's smallest `pid_max`). A sandboxed command
 * cannot change it (its own `/proc` is the sandbox's inner namespace's, and it has no
 * capabilities); an unsandboxed one running as root could, as it could anything (the bound is
 * against a runaway test suite, not a hostile command). Empty when not root, on kernels before
 * 6.14, without `unshare`, and where it cannot set `pid_max` (a container's read-only `/proc/sys`).
 */
export async function pidNamespacePrefix(limits: Required<ResourceLimits>): Promise<string[]> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0 || !hasPidMaxPerNamespace()) return [];
  unsharePath ??= (async () => {
    const found = await findExecutable('unshare', {
      pathVariable: `${process.env.PATH ?? ''}${path.delimiter}/usr/bin:/bin`,
    });
    // Once: a container may forbid the namespace or mount `/proc/sys` read-only; then commands run
    // as before rather than not at all.
    return found !== undefined && (await pidMaxSettable(found)) ? found : undefined;
  })();
  const unshare = await unsharePath;
  if (unshare === undefined) return [];
  const pidMax = Math.max(MIN_PID_MAX, limits.maxProcesses + SANDBOX_PROCESSES);
  return [
    unshare,
    '--pid',
    '--fork',
    '--kill-child',
    '/bin/sh',
    '-c',
    `echo ${pidMax} > /proc/sys/kernel/pid_max && [ "$(cat /proc/sys/kernel/pid_max)" = ${pidMax} ] || exit 126; exec "$@"`,
    'closedloop-pids',
  ];
}

/** Whether `unshare` can make a pid namespace here and set its `pid_max`. */
function pidMaxSettable(unshare: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(
      unshare,
      [
        '--pid',
        '--fork',
        '--kill-child',
        '/bin/sh',
        '-c',
        'echo 4096 > /proc/sys/kernel/pid_max && [ "$(cat /proc/sys/kernel/pid_max)" = 4096 ]',
      ],
      { timeout: 10_000, env: { PATH: '/usr/bin:/bin' } },
      (error) => resolve(error === null),
    );
  });
}

/**
 * The prefix every limited command starts with: a shell sets `RLIMIT_CPU`, `RLIMIT_FSIZE` and —
 * unless the group bounds memory — `RLIMIT_DATA` (its `ulimit` builtin: no program to start), writes its own pid to each
 * `cgroup.procs` of `group`, and then becomes the command (`exec`), so no process of the command
 * is ever outside the group or its limits.
 */
export function limitPrefix(limits: Required<ResourceLimits>, group: LimitGroup | undefined): string[] {
  const dataKiB = Math.max(1, Math.floor(limits.maxMemoryBytes / 1024));
  // In 512-byte blocks for `sh` (dash, and bash in POSIX mode).
  const fileBlocks = Math.max(1, Math.floor(limits.maxFileBytes / 512));
  const procs = group?.procs ?? [];
  return [
    '/bin/sh',
    '-c',
    `${group?.boundsMemory ? '' : `ulimit -d ${dataKiB} && `}ulimit -t ${limits.maxCpuSeconds} && ulimit -f ${fileBlocks} || exit 126; n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 126; shift; n=$((n - 1)); done; exec "$@"`,
    'closedloop-limits',
    String(procs.length),
    ...procs,
  ];
}

/** How often {@link diskWatch}'s check runs while a command does (milliseconds). */
export const diskWatchIntervalMs = 20;

/** What {@link diskWatch} made: the budget of one command and the check that enforces it. */
export interface DiskWatch {
  /** Bytes the command may take (the smaller of `maxDiskBytes` and half the free space). */
  budget: number;
  /** The reason to stop the command when it took more than `budget` of a file system, else undefined. */
  check(): Promise<string | undefined>;
}

function mebibytes(bytes: number): string {
  return `${Math.round(bytes / 1024 ** 2)} MiB`;
}

/**
 * Notes the free space of the file systems that hold `folders` (the workspace, writable
 * folders) before a command starts; its `check` tells when the command has taken more than its
 * budget of one of them since (RLIMIT_FSIZE bounds one file, not a thousand). Undefined where the
 * free space cannot be read (`statfs`). What other processes write to the same file system meanwhile
 * counts too: the bound is against filling the disk, not an exact quota.
 */
export async function diskWatch(
  limits: Required<ResourceLimits>,
  folders: readonly string[],
): Promise<DiskWatch | undefined> {
  const watched: { folder: string; freeAtStart: number }[] = [];
  const devices = new Set<number>();
  for (const folder of folders) {
    try {
      const { dev } = await stat(folder);
      if (devices.has(dev)) continue;
      devices.add(dev);
      const info = await statfs(folder);
      watched.push({ folder, freeAtStart: info.bavail * info.bsize });
    } catch {
      // gone, or no statfs here: nothing to watch for it
    }
  }
  if (watched.length === 0) return undefined;
  const smallestFree = Math.min(...watched.map((entry) => entry.freeAtStart));
  const budget = Math.max(1024 * 1024, Math.min(limits.maxDiskBytes, Math.floor(smallestFree / 2)));
  return {
    budget,
    async check() {
      for (const { folder, freeAtStart } of watched) {
        let free: number;
        try {
          const info = await statfs(folder);
          free = info.bavail * info.bsize;
        } catch {
          continue;
        }
        const taken = freeAtStart - free;
        if (taken > budget) {
          return `it took ${mebibytes(taken)} of disk space in ${folder}, over its limit of ${mebibytes(budget)} (maxDiskBytes, at most half the free space when it started)`;
        }
      }
      return undefined;
    },
  };
}
