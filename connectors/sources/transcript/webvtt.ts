/**
 * WebVTT (W3C WebVTT: The Web Video Text Tracks Format): a `WEBVTT` header,
 * then blocks separated by blank lines. NOTE, STYLE and REGION blocks carry
 * no speech and are passed over; a cue is an optional identifier line, a
 * timing line (`00:01.000 --> 00:04.000 align:start`, hours optional) and
 * its payload lines, whose `<v Speaker>` voice span (or a leading
 * `Speaker: `, as Zoom writes them) names the speaker.
 */
import { blocksOf, linesOf, timedCue } from './cues.js';
import type { Cue, ParseOptions, ParseProblem, ParsedTranscript } from './cues.js';

const NON_CUE_BLOCK = /^(NOTE|STYLE|REGION)(?:[ \t]|$)/;

export function parseWebVtt(text: string, options: ParseOptions): ParsedTranscript {
  const lines = linesOf(text);
  if (!/^WEBVTT(?:[ \t]|$)/.test(lines[0] ?? '')) {
    return { cues: [], problems: [], refused: 'not a WebVTT file: its first line is not "WEBVTT"' };
  }
  const cues: Cue[] = [];
  const problems: ParseProblem[] = [];
  // The first block is the header (WEBVTT and its optional metadata lines).
  for (const block of blocksOf(lines).slice(1)) {
    if (NON_CUE_BLOCK.test(block.lines[0]!)) continue;
    const timingAt = block.lines[0]!.includes('-->') ? 0 : block.lines[1]?.includes('-->') ? 1 : -1;
    if (timingAt < 0) {
      problems.push({ line: block.line, action: 'skipped', reason: `a block that is neither a cue nor a NOTE/STYLE/REGION: ${JSON.stringify(block.lines[0]!.slice(0, 80))}` });
      continue;
    }
    const cue = timedCue(block, timingAt, options);
    if ('action' in cue) problems.push(cue);
    else cues.push(cue);
  }
  return { cues, problems };
}
