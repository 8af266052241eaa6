/**
 * The share of the machine's CPU time its host took (the `steal` column of
 * /proc/stat): on a virtual machine whose host is busy, every process here
 * runs slower, unevenly, and a ratio of two runs swings with it. Linux only;
 * NaN elsewhere.
 */
import { readFileSync } from 'node:fs';

interface CpuTimes {
  steal: number;
  total: number;
}

function cpuTimes(): CpuTimes | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is counted within user)
    const total = fields.slice(0, 8).reduce((sum, n) => sum + n, 0);
    return { steal: fields[7] ?? 0, total };
  } catch {
    return undefined;
  }
}

/** Starts a measurement; the function returned gives the host's share of the CPU time since. */
export function measureHostSteal(): () => number {
  const before = cpuTimes();
  return () => {
    const after = cpuTimes();
    if (before === undefined || after === undefined || after.total === before.total) return Number.NaN;
    return (after.steal - before.steal) / (after.total - before.total);
  };
}
