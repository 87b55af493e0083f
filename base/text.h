/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text from input on its way to a terminal or a report. A matrix file,
 * a flag, a run directory from another machine may hold bytes a terminal
 * acts on: ESC starts a sequence that recolours or retitles it, or (OSC
 * 52) writes the clipboard; CR and BS overwrite what was printed. Every
 * such byte leaves futexlab escaped, so a message shows what the input
 * held and the terminal does nothing:
 *
 *   a byte below 0x20 but newline and tab   \xNN    ("\x1b")
 *   DEL, and the C1 controls U+0080-U+009F  \u00NN  ("\u009b")
 *
 * DEL and C1 take JSON's spelling: --json output holds them raw (jansson
 * escapes only the bytes below 0x20), and \u00NN keeps it valid JSON
 * meaning the same text. A C1 control is the two bytes 0xc2 0x80-0x9f
 * of UTF-8; other bytes above 0x7f pass, so UTF-8 text stays readable.
 *
 * cli/main.c puts stdout and stderr behind sinks (fl_text_sink), so no
 * message can forget; only the program's own sequences (the progress
 * line's "\r\033[K") pass, through fl_text_control(), which input cannot
 * reach.
 */
#ifndef FUTEXLAB_BASE_TEXT_H
#define FUTEXLAB_BASE_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* The most characters one byte becomes ("\u009b" for two bytes). */
#define FL_TEXT_ESCAPE_MAX	6

/*
 * s escaped into out, NUL-terminated, cut before the first escape or
 * byte that would not fit in len; returns out.
 */
char *fl_text_escape(const char *s, char *out, size_t len);

/*
 * A stream that writes everything through the escape to under, buffered
 * as mode says (_IOFBF, _IOLBF, _IONBF, as setvbuf takes); each write
 * is flushed to under's descriptor, so an error shows on the sink
 * (ferror) at the flush that met it. Closing it leaves under open. NULL
 * with errno when it cannot be made.
 */
FILE *fl_text_sink(FILE *under, int mode);

/* The file path created (or emptied) for writing through a sink that
 * owns it: closing the sink closes the file, and fails when any write
 * did. NULL with errno. */
FILE *fl_text_file(const char *path);

/*
 * The program's own control sequence seq written as it is to the
 * stream under the sink f (to f when f is no sink), after what f holds:
 * the only way a control byte reaches a terminal.
 */
void fl_text_control(FILE *f, const char *seq);

/* The stream under the sink f, or f itself: the descriptor a terminal's
 * questions (its width) are asked of. */
FILE *fl_text_under(FILE *f);

#endif
