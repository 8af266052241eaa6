/**
 * SubRip (.srt): blocks separated by blank lines, each a sequence number, a
 * timing line with comma decimals (`00:00:01,000 --> 00:00:04,000`) and the
 * text lines. Speakers as in WebVTT: a `<v Name>` span or a leading `Name: `.
 */
import { blocksOf, linesOf, timedCue } from './cues.js';
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
    const cue = timedCue(block, timingAt, options);
    if ('action' in cue) problems.push(cue);
    else cues.push(cue);
  }
  return { cues, problems };
}
