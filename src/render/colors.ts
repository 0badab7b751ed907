/**
 * Colour, applied last and in one place: renderers produce lines tagged with a
 * tone; `paint` turns tones into ANSI colour only when enabled. The caller
 * decides `enabled` (TTY, NO_COLOR, FORCE_COLOR, --no-color), never picocolors,
 * which forces colour on whenever `CI` is set. The only user of picocolors.
 */
import picocolors from 'picocolors';

export type Tone = 'plain' | 'create' | 'update' | 'delete' | 'danger' | 'muted' | 'heading';

export interface Line {
  text: string;
  tone: Tone;
}

export function paint(lines: readonly Line[], enabled: boolean): string {
  const colors = picocolors.createColors(enabled);
  const styles: Record<Tone, (text: string) => string> = {
    plain: (text) => text,
    create: colors.green,
    update: colors.yellow,
    delete: colors.red,
    danger: (text) => colors.bold(colors.red(text)),
    muted: colors.dim,
    heading: colors.bold,
  };
  return (
    lines.map((line) => (line.text === '' ? '' : styles[line.tone](line.text))).join('\n') +
    (lines.length > 0 ? '\n' : '')
  );
}
