/** Reads a V8 .cpuprofile and sums self time per function (name + url + line). */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  function: string;
  location: string;
  selfMs: number;
  share: number;
}

export function topSelfTime(file: string, limit = 25): { totalMs: number; idleMs: number; top: SelfTime[] } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const frames = new Map<number, CallFrame>(profile.nodes.map((node) => [node.id, node.callFrame]));
  const totals = new Map<string, { frame: CallFrame; micros: number }>();
  // timeDeltas[i] is the time before sample i; the time a sample stands for is the delta to the next one.
  for (let i = 0; i < profile.samples.length; i++) {
    const frame = frames.get(profile.samples[i] as number);
    if (frame === undefined) continue;
    const micros = profile.timeDeltas[i + 1] ?? 0;
    const key = `${frame.functionName}|${frame.url}|${frame.lineNumber}`;
    const entry = totals.get(key) ?? { frame, micros: 0 };
    entry.micros += Math.max(0, micros);
    totals.set(key, entry);
  }
  const all = [...totals.values()];
  const totalMicros = all.reduce((sum, entry) => sum + entry.micros, 0);
  const idleMicros = all
    .filter((entry) => entry.frame.functionName === '(idle)')
    .reduce((sum, entry) => sum + entry.micros, 0);
  const top = all
    .sort((a, b) => b.micros - a.micros)
    .slice(0, limit)
    .map((entry) => ({
      function: entry.frame.functionName === '' ? '(anonymous)' : entry.frame.functionName,
      location:
        entry.frame.url === ''
          ? ''
          : `${entry.frame.url.replace(/^file:\/\//, '').replace(/.*\/node_modules\//, 'node_modules/')}:${entry.frame.lineNumber + 1}`,
      selfMs: Math.round(entry.micros / 100) / 10,
      share: totalMicros === 0 ? 0 : Math.round((entry.micros / totalMicros) * 1000) / 10,
    }));
  return { totalMs: Math.round(totalMicros / 1000), idleMs: Math.round(idleMicros / 1000), top };
}
