/**
 * SubRip (.srt): blocks separated by blank lines, each a sequence number, a
 * timing line with comma decimals (`00:00:01,000 --> 00:00:04,000`) and the
 * text lines. Speakers as in WebVTT: a `<v Name>` span or a leading `Name: `.
 */
import { blocksOf, cuePayload, linesOf, parseTiming } from './cues.js';
import type { Cue, ParseOptions, ParseProblem, ParsedTranscript } from './cues.js';

export function parseSrt(text: string, options: ParseOptions): ParsedTranscript {
  const cues: Cue[] = [];
  const problems: ParseProblem[] = [];
  for (const block of blocksOf(linesOf(text))) {
    const timingAt = block.lines.findIndex((l) => l.includes('-->'));
    if (timingAt < 0 || timingAt > 1) {
      problems.push({ line: block.line, action: 'skipped', reason: `a block without a timing line: ${JSON.stringify(block.lines[0]!.slice(0, 80))}` });
      continue;
    }
    const line = block.line + timingAt;
    const timing = parseTiming(block.lines[timingAt]!);
    if ('error' in timing) {
      problems.push({ line, action: 'skipped', reason: timing.error });
      continue;
    }
    const { speaker, text: spoken } = cuePayload(block.lines.slice(timingAt + 1).join('\n'), options);
    if (spoken === '') {
      problems.push({ line, action: 'skipped', reason: 'a cue with no text' });
      continue;
    }
    cues.push({ line, start: timing.start, end: timing.end, text: spoken, ...(speaker ? { speaker } : {}) });
  }
  return { cues, problems };
}
