/**
 * Plain-text transcripts as note-takers write them, a turn per line:
 * `00:01:02 Speaker: text`, `[00:01:02] Speaker: text`, or `Speaker: text`
 * (no time: the turn takes the time of the one before). A time alone on its
 * line (`[00:00:01:03]`, as radio logs write mission elapsed time) sets the
 * time of the turns below it; an indented line, or any line that is not a
 * new turn, continues the turn above it.
 */
import { linesOf, plainCueText, parseClock, splitSpeakerPrefix } from './cues.js';
import type { Cue, ParseProblem, ParsedTranscript } from './cues.js';

const TIMED = /^\s*(?:\[(-?[\d:.,]+)\]|(-?\d+(?::\d{2}){1,3}(?:[.,]\d{1,3})?))(?:\s+(.*))?$/;

export function parseText(text: string): ParsedTranscript {
  const cues: Cue[] = [];
  const problems: ParseProblem[] = [];
  let time = 0;
  let open: Cue | undefined;
  linesOf(text).forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') {
      open = undefined;
      return;
    }
    const timed = TIMED.exec(raw);
    let rest = raw;
    let stamped = false;
    if (timed) {
      const at = parseClock(timed[1] ?? timed[2]!);
      if (at === undefined) {
        problems.push({ line, action: 'skipped', reason: `unreadable time ${JSON.stringify(timed[1] ?? timed[2])}` });
        open = undefined;
        return;
      }
      time = at;
      stamped = true;
      rest = timed[3] ?? '';
      if (rest.trim() === '') {
        open = undefined;
        return;
      }
    }
    const continuation = !stamped && /^\s/.test(raw);
    const turn = continuation ? undefined : splitSpeakerPrefix(rest.trim());
    if (turn) {
      open = { line, start: time, speaker: turn.speaker, text: plainCueText(turn.text) };
      cues.push(open);
    } else if (open && !stamped) {
      open.text = `${open.text} ${plainCueText(rest)}`.trim();
    } else if (stamped) {
      // A time and words but no "Speaker:" before them: a turn without a speaker.
      open = { line, start: time, text: plainCueText(rest) };
      cues.push(open);
    } else {
      problems.push({ line, action: 'skipped', reason: `a line that is neither "Speaker: text" nor a continuation: ${JSON.stringify(raw.slice(0, 80))}` });
    }
  });
  const kept = cues.filter((cue) => cue.text !== '');
  for (const cue of cues) if (cue.text === '') problems.push({ line: cue.line, action: 'skipped', reason: 'a turn with no text' });
  return { cues: kept, problems };
}
