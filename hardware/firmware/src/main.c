/*
 * main.c - firmware of the Oware sensor board.
 *
 * What it does, in a loop:
 *   1. When all 14 HX711s have a conversion ready (or a channel is late by
 *      more than two sample periods), clock the readings out, turn them into
 *      milligrams with the tare offsets and scales from EEPROM, and send one
 *      READING frame.
 *   2. Answer the host's commands: IDENTIFY, TARE, CALIBRATE, SET_LEDS,
 *      SET_RATE (hardware/PROTOCOL.md).
 *   3. A long press (2 s) on the tare button tares every channel, for boards
 *      used without a computer at hand.
 *   4. Sleep until the next 1 ms tick or a received byte.
 *
 * Counting seeds is the host's job: the firmware only weighs.
 * A watchdog restarts the board if the loop ever hangs; the host notices the
 * restart from the new HELLO (its boot counter) and carries on.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <string.h>

#include "board.h"
#include "frame.h"
#include "hx711.h"
#include "settings.h"
#include "uart.h"
#include "ws2812.h"

#define ALL_CHANNELS ((uint16_t)((1U << N_CHANNELS) - 1))
#define AVERAGE_SAMPLES 16
#define FLAG_TIMEOUT 0x01
#define FLAG_SATURATED 0x02

static volatile uint32_t ms_ticks;
static uint32_t sample_counter;
static int32_t last_raw[N_CHANNELS];
static uint8_t reset_cause;
static uint16_t stale_mask; /* channels not converted in the last sample() */

/* MCUSR must be read and cleared before anything else, or a watchdog reset loops. */
void early_init(void) __attribute__((naked, used, section(".init3")));
void early_init(void) {
    reset_cause = MCUSR;
    MCUSR = 0;
    wdt_disable();
}

ISR(TIMER0_COMPA_vect) { ms_ticks++; }

static uint32_t millis(void) {
    uint32_t t;
    cli();
    t = ms_ticks;
    sei();
    return t;
}

static void put_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void send_hello(uint8_t cause) {
    uint8_t p[10];
    p[0] = PROTOCOL_VERSION;
    p[1] = FW_MAJOR;
    p[2] = FW_MINOR;
    p[3] = FW_PATCH;
    p[4] = N_PITS;
    p[5] = N_STORES;
    p[6] = settings.rate_hz;
    p[7] = (uint8_t)settings.boot_count;
    p[8] = (uint8_t)(settings.boot_count >> 8);
    p[9] = cause;
    frame_send(MSG_HELLO, p, sizeof p);
}

static void send_ack(const frame_t *cmd, uint8_t status, const uint8_t *data, uint8_t len) {
    uint8_t p[3 + 4];
    p[0] = cmd->type;
    p[1] = cmd->seq;
    p[2] = status;
    if (len > 4) {
        len = 4;
    }
    memcpy(p + 3, data, len);
    frame_send(MSG_ACK, p, (uint8_t)(3 + len));
}

static void send_text(const char *s) { frame_send(MSG_TEXT, (const uint8_t *)s, (uint8_t)strlen(s)); }

/* Channels that answer. A cell that stops converting (broken wire, unplugged)
 * is dropped from the mask so the others keep their pace, and comes back as
 * soon as its DOUT goes low again. */
static uint16_t alive = ALL_CHANNELS;
static uint32_t ready_since; /* ms when cells first showed ready after the last read */
static uint8_t ready_seen;
static uint32_t last_reading;

/* Whether to clock out a reading now.
 *
 * Normally: as soon as every live cell is ready (we poll every 1 ms). The
 * cells are clocked from one oscillator (hardware/WIRING.md) and convert
 * together, so this read ends long before the next conversion; a read that
 * straddled one would return garbage. If some cells are late by 2.5 periods
 * they are declared dead, and the others are read only early in their period
 * (measured from when they were seen becoming ready), for the same reason. */
static uint8_t time_to_read(uint32_t now) {
    uint16_t ready = hx711_ready_mask();
    uint16_t period_x10 = settings.rate_hz == 80 ? 125 : 1000; /* tenths of a ms */
    alive |= ready;
    if (ready && !ready_seen) {
        ready_seen = 1;
        ready_since = now;
    }
    if (ready && (ready & alive) == alive) {
        return 1;
    }
    if ((now - last_reading) * 10 < 25UL * period_x10 / 10) {
        return 0;
    }
    if (!ready) {
        return now - last_reading > 250U; /* nothing converts: keep reporting, all stale */
    }
    if ((now - ready_since) * 10 % period_x10 < (uint32_t)(period_x10 - 30)) {
        alive = ready;
        return 1;
    }
    return 0;
}

/* Clock out one reading of every channel; channels not ready keep their last
 * value and are marked stale. Returns the READING flags. */
static uint8_t sample(int32_t raw[N_CHANNELS]) {
    uint16_t ready = hx711_ready_mask();
    uint8_t flags = 0, ch;
    hx711_read_all(raw);
    last_reading = millis();
    ready_seen = 0;
    sample_counter++;
    stale_mask = (uint16_t)(~ready & ALL_CHANNELS);
    if (stale_mask) {
        flags |= FLAG_TIMEOUT;
    }
    for (ch = 0; ch < N_CHANNELS; ch++) {
        if (!(ready & (1U << ch))) {
            raw[ch] = last_raw[ch]; /* not converted: keep the last good value */
        } else if (raw[ch] == 0x7FFFFFL || raw[ch] == -0x800000L) {
            flags |= FLAG_SATURATED;
        }
        last_raw[ch] = raw[ch];
    }
    return flags;
}

/* Wait (sleeping, feeding the watchdog) for the next reading and take it. */
static uint8_t next_sample(int32_t raw[N_CHANNELS]) {
    while (!time_to_read(millis())) {
        wdt_reset();
        sleep_mode();
    }
    return sample(raw);
}

/* Mean raw value of every channel over AVERAGE_SAMPLES fresh conversions.
 * Conversions where a live channel was late are skipped (right after a rate
 * change the HX711s are still settling). Returns 0 if the cells never answered. */
static uint8_t average(int32_t mean[N_CHANNELS]) {
    int32_t raw[N_CHANNELS];
    int64_t sum[N_CHANNELS];
    uint8_t good = 0, tries = 0, ch;
    memset(sum, 0, sizeof sum);
    while (good < AVERAGE_SAMPLES) {
        if (++tries > 3 * AVERAGE_SAMPLES) {
            return 0;
        }
        next_sample(raw);
        if (stale_mask == ALL_CHANNELS || (stale_mask & alive)) {
            continue;
        }
        good++;
        for (ch = 0; ch < N_CHANNELS; ch++) {
            sum[ch] += raw[ch];
        }
    }
    for (ch = 0; ch < N_CHANNELS; ch++) {
        mean[ch] = (int32_t)(sum[ch] / AVERAGE_SAMPLES);
    }
    return 1;
}

static uint8_t tare(uint16_t mask) {
    int32_t mean[N_CHANNELS];
    uint8_t ch;
    if (!average(mean)) {
        return 0;
    }
    for (ch = 0; ch < N_CHANNELS; ch++) {
        if (mask & (1U << ch)) {
            settings.offset[ch] = mean[ch];
        }
    }
    settings_save();
    return 1;
}

static void send_reading(const int32_t raw[N_CHANNELS], uint8_t flags) {
    uint8_t p[8 + 4 * N_CHANNELS];
    uint8_t ch;
    put_u32(p, sample_counter);
    p[4] = flags;
    p[5] = N_CHANNELS;
    p[6] = (uint8_t)stale_mask;
    p[7] = (uint8_t)(stale_mask >> 8);
    for (ch = 0; ch < N_CHANNELS; ch++) {
        float mg = (float)(raw[ch] - settings.offset[ch]) * 1000.0f / settings.scale[ch];
        int32_t v;
        if (mg > 2.0e9f) {
            v = 2000000000L;
        } else if (mg < -2.0e9f) {
            v = -2000000000L;
        } else {
            v = (int32_t)mg;
        }
        put_u32(p + 8 + 4 * ch, (uint32_t)v);
    }
    frame_try_send(MSG_READING, p, sizeof p);
}

static void handle(const frame_t *f) {
    switch (f->type) {
    case CMD_IDENTIFY:
        send_hello(0);
        return;
    case CMD_TARE:
        if (f->len != 2) {
            break;
        }
        send_ack(f, tare((uint16_t)(f->payload[0] | (f->payload[1] << 8))) ? ACK_OK : ACK_FAILED,
                 0, 0);
        return;
    case CMD_CALIBRATE: {
        int32_t mean[N_CHANNELS];
        uint8_t ch = f->payload[0];
        uint32_t mg;
        float counts;
        mg = (uint32_t)f->payload[1] | ((uint32_t)f->payload[2] << 8) |
             ((uint32_t)f->payload[3] << 16) | ((uint32_t)f->payload[4] << 24);
        if (f->len != 5 || ch >= N_CHANNELS || mg == 0) {
            break;
        }
        counts = average(mean) ? (float)(mean[ch] - settings.offset[ch]) : 0.0f;
        if (counts < 100.0f) {
            send_ack(f, ACK_FAILED, 0, 0); /* nothing on the pit, or a reversed cell */
            return;
        }
        settings.scale[ch] = counts * 1000.0f / (float)mg;
        settings_save();
        send_ack(f, ACK_OK, (const uint8_t *)&settings.scale[ch], 4);
        return;
    }
    case CMD_SET_LEDS:
        if (f->len != 3 * N_LEDS) {
            break;
        }
        ws2812_show(f->payload, N_LEDS);
        send_ack(f, ACK_OK, 0, 0);
        return;
    case CMD_SET_RATE:
        if (f->len != 1 || (f->payload[0] != 10 && f->payload[0] != 80)) {
            break;
        }
        settings.rate_hz = f->payload[0];
        hx711_set_rate(settings.rate_hz);
        settings_save();
        send_ack(f, ACK_OK, 0, 0);
        return;
    default:
        send_ack(f, ACK_UNKNOWN_COMMAND, 0, 0);
        return;
    }
    send_ack(f, ACK_BAD_ARGUMENT, 0, 0);
}

int main(void) {
    static frame_t rx;
    int32_t raw[N_CHANNELS];
    static const uint8_t leds_off[3 * N_LEDS];
    uint32_t pressed_since = 0;
    uint8_t pressed = 0;

    settings_load();
    hx711_init();
    hx711_set_rate(settings.rate_hz);
    ws2812_init();
    uart_init();
    BUTTON_PORT |= (1 << BUTTON_BIT); /* pull-up: the button shorts to ground */
    /* Timer0: 1 kHz tick (CTC, 16 MHz / 64 / 250). */
    TCCR0A = (1 << WGM01);
    TCCR0B = (1 << CS01) | (1 << CS00);
    OCR0A = 249;
    TIMSK0 = (1 << OCIE0A);
    /* INT0/INT1 (on SCK and the LED line) stay disabled; edge mode rather than the
     * default low-level mode spares the simulator polling those pins every cycle. */
    EICRA = (1 << ISC11) | (1 << ISC10) | (1 << ISC01) | (1 << ISC00);
    set_sleep_mode(SLEEP_MODE_IDLE);
    sei();
    wdt_enable(WDTO_1S);

    send_hello(reset_cause ? reset_cause : 1);
    ws2812_show(leds_off, N_LEDS);

    for (;;) {
        int16_t c;
        uint32_t now;
        wdt_reset();
        while ((c = uart_read()) >= 0) {
            if (frame_feed((uint8_t)c, &rx)) {
                handle(&rx);
            }
        }
        now = millis();
        if (time_to_read(now)) {
            uint8_t flags = sample(raw);
            send_reading(raw, flags);
            continue;
        }
        if (!(BUTTON_PIN & (1 << BUTTON_BIT))) {
            if (!pressed) {
                pressed = 1;
                pressed_since = now;
            } else if (now - pressed_since > 2000 && pressed_since != 0xFFFFFFFFUL) {
                send_text(tare(ALL_CHANNELS) ? "tare: all channels (button)"
                                             : "tare failed: a load cell does not answer");
                pressed_since = 0xFFFFFFFFUL; /* once per press */
            }
        } else {
            pressed = 0;
        }
        sleep_mode(); /* until the next 1 ms tick or a received byte */
    }
}
