// Text from other people (player names, chat, reasons a peer gives) printed to a terminal: every character
// that a terminal would act on instead of showing is replaced by U+FFFD, so a name cannot clear the screen,
// move the cursor, set the window title, fake a second line or reverse the text after it (Trojan Source).
// Replaced: C0 and C1 controls and DEL (ESC, CR, LF, BEL, CSI …; a TAB becomes a space), the Unicode format
// characters (bidi embeddings, overrides and isolates, LRM/RLM/ALM, zero-width space, BOM, …) except the
// zero-width joiner and non-joiner that emoji and some scripts need, the line and paragraph separators, and
// lone surrogates.

const UNSAFE = /[\p{Cc}\p{Zl}\p{Zp}\p{Cs}]|(?![\u200c\u200d])\p{Cf}/gu;

/** `text` with nothing a terminal would interpret. */
export function terminalSafe(text: string): string {
  return text.replace(/\t/g, ' ').replace(UNSAFE, '\ufffd');
}
