/*
 * harness.c - run the sensor-board firmware, unchanged, in simavr.
 *
 * The harness plays the board around the ATmega328P:
 *
 *   - 14 HX711 load-cell amplifiers on the firmware's pins (board.h): each
 *     converts at 10 or 80 samples/s (following the RATE pin), pulls DOUT
 *     low when ready and shifts out 24 bits on the rising edges of the shared
 *     SCK line, MSB first. The raw value is  offset + grams * counts_per_gram
 *     + noise, with a different offset and gain per channel, as real cells.
 *   - the UART, bridged to a pseudo-terminal the host opens like a USB port;
 *   - the WS2812 LED line, decoded from pulse widths and printed.
 *
 * Control (stdin, one command per line):
 *   w <channel> <grams>     put a weight on a channel (0-11 pits, 12-13 stores)
 *   at <seconds> w <channel> <grams>
 *                           the same, at that simulated time (the first conversion
 *                           at or after it; at once if it has passed): a test lays
 *                           out a whole move ahead, so that a stalled host cannot
 *                           stretch the time between two seeds
 *   dead <channel> <0|1>    a broken cell: its DOUT stays high
 *   time                    report the simulated clock (see "time" below)
 *   quit
 * Reports (stdout, one per line, flushed):
 *   cell <ch> offset <raw> gain <counts per gram>   the emulated cells (at start)
 *   pty <path>              the serial port to open (after the cells)
 *   leds r g b r g b ...    12 LED colours, each time the firmware latches them
 *   sck_high_too_long <n>   SCK stayed high over 60 us (the HX711 would power down)
 *   read_overlap <n>        a conversion ended while the firmware was still reading
 *   rate <hz>               the RATE line changed
 *   time <seconds>          the simulated clock, in answer to "time": tests wait
 *                           for simulated time, since a loaded host runs slower
 *
 * When the firmware sleeps, the harness waits for real time (scaled by
 * --speed) while watching stdin and the pty, so it costs little CPU.
 *
 * Usage: harness <firmware.elf> [--speed X] [--seed N]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pty.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <avr_ioport.h>
#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_irq.h>
#include <sim_time.h>

#define N_CH 14
#define N_LEDS 12
#define F_CPU 16000000UL

static avr_t *avr;
static int pty_master = -1;
static double speed = 1.0;

/* --- HX711 model ---------------------------------------------------------- */

static double weight_g[N_CH];
static double counts_per_g[N_CH];
static int32_t offset[N_CH];
static int dead[N_CH];
static int32_t value[N_CH];
static int ready;
static int bits_out;
static int rate_high;
static avr_cycle_count_t sck_rise;
static int sck_high;
static unsigned long sck_violations;
static unsigned long read_overlaps;
static avr_irq_t *dout_irq[N_CH];

/* Weight changes scheduled by "at", in the order they came (tests send them in
 * time order; each conversion applies every one that is due). */
#define N_AT 512
static struct {
    avr_cycle_count_t cycle;
    int ch;
    double g;
} at_queue[N_AT];
static size_t at_len;

static void apply_due(avr_cycle_count_t now) {
    size_t i = 0, kept = 0;
    for (i = 0; i < at_len; i++) {
        if (at_queue[i].cycle <= now) {
            weight_g[at_queue[i].ch] = at_queue[i].g;
        } else {
            at_queue[kept++] = at_queue[i];
        }
    }
    at_len = kept;
}

static double gauss(void) {
    double u = (rand() + 1.0) / (RAND_MAX + 2.0), v = (rand() + 1.0) / (RAND_MAX + 2.0);
    return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

static void set_dout(int ch, int level) { avr_raise_irq(dout_irq[ch], level ? 1 : 0); }

static avr_cycle_count_t conversion_done(avr_t *a, avr_cycle_count_t when, void *param) {
    int ch;
    (void)param;
    if (ready && bits_out > 0 && bits_out <= 24) {
        /* The firmware was still clocking out the previous conversion: on a real
         * HX711 that read is garbage. Report it; the tests require none. */
        read_overlaps++;
        printf("read_overlap %lu\n", read_overlaps);
        fflush(stdout);
    }
    apply_due(when);
    for (ch = 0; ch < N_CH; ch++) {
        double raw = offset[ch] + weight_g[ch] * counts_per_g[ch] + 12.0 * gauss();
        if (raw > 8388607.0) raw = 8388607.0;
        if (raw < -8388608.0) raw = -8388608.0;
        value[ch] = (int32_t)raw;
        set_dout(ch, dead[ch] ? 1 : 0);
    }
    ready = 1;
    bits_out = 0;
    /* Next conversion: the HX711 converts continuously at its rate. */
    return when + (a->frequency / (rate_high ? 80 : 10));
}

static void sck_changed(avr_irq_t *irq, uint32_t v, void *param) {
    int ch;
    (void)irq;
    (void)param;
    if (v) {
        if (sck_high) return; /* not an edge */
        sck_high = 1;
        sck_rise = avr->cycle;
        if (!ready) return;
        bits_out++;
        if (bits_out <= 24) {
            for (ch = 0; ch < N_CH; ch++) {
                if (!dead[ch]) set_dout(ch, (value[ch] >> (24 - bits_out)) & 1);
            }
        } else {
            for (ch = 0; ch < N_CH; ch++) set_dout(ch, 1);
            ready = 0; /* read; DOUT high until the next conversion */
        }
        return;
    }
    if (!sck_high) return; /* not an edge (e.g. the pin becoming an output) */
    sck_high = 0;
    if (avr->cycle - sck_rise > 60 * (F_CPU / 1000000UL)) {
        sck_violations++;
        printf("sck_high_too_long %lu\n", sck_violations);
        fflush(stdout);
    }
}

static void rate_changed(avr_irq_t *irq, uint32_t v, void *param) {
    (void)irq;
    (void)param;
    rate_high = v ? 1 : 0;
    printf("rate %d\n", rate_high ? 80 : 10);
    fflush(stdout);
}

/* --- WS2812 decoder ---------------------------------------------------------- */

static uint8_t led_bytes[3 * N_LEDS];
static int led_bits;
static avr_cycle_count_t led_rise;

static avr_cycle_count_t led_latch(avr_t *a, avr_cycle_count_t when, void *param) {
    int i;
    (void)a;
    (void)when;
    (void)param;
    if (led_bits >= 24) {
        printf("leds");
        for (i = 0; i < N_LEDS; i++) {
            /* on the wire: G, R, B */
            printf(" %d %d %d", led_bytes[3 * i + 1], led_bytes[3 * i], led_bytes[3 * i + 2]);
        }
        printf("\n");
        fflush(stdout);
    }
    led_bits = 0;
    memset(led_bytes, 0, sizeof led_bytes);
    return 0;
}

static void led_changed(avr_irq_t *irq, uint32_t v, void *param) {
    (void)irq;
    (void)param;
    if (v) {
        led_rise = avr->cycle;
        avr_cycle_timer_cancel(avr, led_latch, NULL);
        return;
    }
    /* A 1 is high ~0.8 us (13 cycles), a 0 ~0.375 us (6 cycles). */
    if (led_bits < 8 * 3 * N_LEDS) {
        int bit = (avr->cycle - led_rise) >= 9;
        led_bytes[led_bits / 8] |= (uint8_t)(bit << (7 - led_bits % 8));
        led_bits++;
    }
    avr_cycle_timer_register_usec(avr, 50, led_latch, NULL);
}

/* --- UART <-> pty ------------------------------------------------------------- */

static uint8_t in_buf[4096];
static size_t in_len;
static int uart_xon = 1;
static avr_irq_t *uart_in_irq;

static void uart_out(avr_irq_t *irq, uint32_t v, void *param) {
    uint8_t c = (uint8_t)v;
    (void)irq;
    (void)param;
    if (pty_master >= 0 && write(pty_master, &c, 1) < 0 && errno != EAGAIN) {
        /* nobody there: the byte is lost, like on a real unplugged cable */
    }
}

static void uart_xon_cb(avr_irq_t *irq, uint32_t v, void *param) {
    (void)irq;
    (void)v;
    (void)param;
    uart_xon = 1;
}

static void uart_xoff_cb(avr_irq_t *irq, uint32_t v, void *param) {
    (void)irq;
    (void)v;
    (void)param;
    uart_xon = 0;
}

static void feed_uart(void) {
    size_t i = 0;
    while (i < in_len && uart_xon) {
        avr_raise_irq(uart_in_irq, in_buf[i++]);
    }
    memmove(in_buf, in_buf + i, in_len - i);
    in_len -= i;
}

/* --- control ---------------------------------------------------------------- */

static char line[256];
static size_t line_len;

static int command(const char *s) {
    int ch, flag;
    double g, t;
    if (sscanf(s, "w %d %lf", &ch, &g) == 2 && ch >= 0 && ch < N_CH) {
        weight_g[ch] = g;
    } else if (sscanf(s, "at %lf w %d %lf", &t, &ch, &g) == 3 && ch >= 0 && ch < N_CH) {
        if (at_len == N_AT) {
            fprintf(stderr, "harness: more than %d weight changes scheduled\n", N_AT);
        } else {
            at_queue[at_len].cycle = (avr_cycle_count_t)(t * avr->frequency);
            at_queue[at_len].ch = ch;
            at_queue[at_len].g = g;
            at_len++;
        }
    } else if (sscanf(s, "dead %d %d", &ch, &flag) == 2 && ch >= 0 && ch < N_CH) {
        dead[ch] = flag;
    } else if (strcmp(s, "time") == 0) {
        printf("time %.6f\n", (double)avr->cycle / avr->frequency);
        fflush(stdout);
    } else if (strncmp(s, "quit", 4) == 0) {
        return 1;
    } else if (s[0]) {
        fprintf(stderr, "harness: unknown command: %s\n", s);
    }
    return 0;
}

/* Wait up to `usec` for stdin or the pty; handle what arrives. Returns 1 to quit. */
static int poll_io(long usec) {
    fd_set rd;
    struct timeval tv = {usec / 1000000, usec % 1000000};
    int maxfd = pty_master > 0 ? pty_master : 0;
    FD_ZERO(&rd);
    FD_SET(0, &rd);
    if (in_len < sizeof in_buf) FD_SET(pty_master, &rd);
    if (select(maxfd + 1, &rd, NULL, NULL, &tv) <= 0) return 0;
    if (FD_ISSET(pty_master, &rd)) {
        ssize_t n = read(pty_master, in_buf + in_len, sizeof in_buf - in_len);
        if (n > 0) in_len += (size_t)n;
    }
    if (FD_ISSET(0, &rd)) {
        char c;
        ssize_t n;
        while ((n = read(0, &c, 1)) == 1) {
            if (c == '\n') {
                line[line_len] = 0;
                line_len = 0;
                if (command(line)) return 1;
            } else if (line_len < sizeof line - 1) {
                line[line_len++] = c;
            }
        }
        if (n == 0) return 1; /* stdin closed: the test is gone */
    }
    return 0;
}

static int quit_requested;
static double wall0;
static avr_cycle_count_t slept_cycles;
static unsigned long sleeps;

static double wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Called by simavr when the firmware sleeps for `how_long` cycles: keep the
 * simulated clock in step with the wall clock (times --speed), and meanwhile
 * serve stdin and the pty. */
static void harness_sleep(avr_t *a, avr_cycle_count_t how_long) {
    slept_cycles += how_long;
    sleeps++;
    double sim_s = (double)(a->cycle + how_long) / a->frequency;
    double ahead = wall0 + sim_s / speed - wall_now();
    if (ahead > 0.0005) {
        if (poll_io((long)(ahead * 1e6))) quit_requested = 1;
    }
    feed_uart();
}

int main(int argc, char **argv) {
    elf_firmware_t fw;
    struct termios tio;
    int slave, i, ch;
    unsigned seed = 1;
    const char *elf = NULL;
    char name[128];
    unsigned long steps = 0;
    uint32_t flags = 0;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--speed") && i + 1 < argc) {
            speed = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = (unsigned)atoi(argv[++i]);
        } else {
            elf = argv[i];
        }
    }
    if (!elf || speed <= 0) {
        fprintf(stderr, "usage: %s firmware.elf [--speed X] [--seed N]\n", argv[0]);
        return 2;
    }
    srand(seed);
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(elf, &fw) != 0) {
        fprintf(stderr, "harness: cannot read %s\n", elf);
        return 1;
    }
    avr = avr_make_mcu_by_name("atmega328p");
    if (!avr) return 1;
    avr_init(avr);
    avr->frequency = F_CPU;
    avr_load_firmware(avr, &fw);
    avr->sleep = harness_sleep;
    avr->log = 1; /* errors only */

    if (openpty(&pty_master, &slave, name, NULL, NULL) < 0) {
        perror("openpty");
        return 1;
    }
    cfmakeraw(&tio);
    tcgetattr(slave, &tio);
    cfmakeraw(&tio);
    tcsetattr(slave, TCSANOW, &tio);
    fcntl(pty_master, F_SETFL, fcntl(pty_master, F_GETFL) | O_NONBLOCK);
    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
    /* Keep `slave` open: the master then never sees a hang-up between host sessions. */

    for (ch = 0; ch < N_CH; ch++) {
        /* Every cell is a little different: an empty-cup offset and a gain. */
        offset[ch] = 20000 + rand() % 60000;
        counts_per_g[ch] = 400.0 + (rand() % 400) / 10.0;
        dout_irq[ch] = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(ch < 6 ? 'C' : ch < 12 ? 'B' : 'D'),
                                     ch < 12 ? ch % 6 : (ch == 12 ? 4 : 5));
        avr_raise_irq(dout_irq[ch], 1);
    }
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), 2), sck_changed, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), 3), led_changed, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), 7), rate_changed, NULL);
    avr_cycle_timer_register(avr, F_CPU / 10, conversion_done, NULL);

    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP);
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), uart_out, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON), uart_xon_cb, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF), uart_xoff_cb, NULL);
    uart_in_irq = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);

    for (ch = 0; ch < N_CH; ch++) {
        printf("cell %d offset %d gain %.1f\n", ch, offset[ch], counts_per_g[ch]);
    }
    printf("pty %s\n", name);
    fflush(stdout);
    wall0 = wall_now();

    while (!quit_requested) {
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            fprintf(stderr, "harness: firmware stopped (state %d)\n", state);
            return 1;
        }
        if (++steps % 20000 == 0) {
            /* The firmware is busy (not sleeping): still look at the outside world. */
            if (poll_io(0)) break;
            feed_uart();
        }
    }
    fprintf(stderr, "harness: %.2f s simulated, %.0f%% asleep (%lu sleeps)\n",
            (double)avr->cycle / avr->frequency, 100.0 * slept_cycles / (avr->cycle + 1), sleeps);
    return 0;
}
