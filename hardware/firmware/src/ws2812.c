/*
 * ws2812.c - bit-banged WS2812B driver for a 16 MHz AVR.
 *
 * Each bit is a 1.25 us period (20 cycles): a 0 is high for about 0.375 us
 * (6 cycles), a 1 for about 0.8 us (13 cycles). The timing is done in
 * assembly with interrupts off; a low period over 50 us latches the colours.
 * 12 LEDs take 360 us, short enough not to disturb the HX711 reads.
 */
#include "ws2812.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/delay.h>

#include "board.h"

void ws2812_init(void) {
    LED_DDR |= (1 << LED_BIT);
    LED_PORT &= ~(1 << LED_BIT);
}

static void send_byte(uint8_t b) {
    uint8_t hi = LED_PORT | (1 << LED_BIT);
    uint8_t lo = LED_PORT & ~(1 << LED_BIT);
    uint8_t n = 8;
    /* Per bit: out hi (1), 4 nops, out bit-dependent (1), 6 nops, out lo (1), loop (~6). */
    __asm__ volatile(
        "1:                 \n\t"
        "out %[port], %[hi] \n\t" /* rise */
        "nop \n\t nop \n\t nop \n\t nop \n\t"
        "sbrs %[b], 7       \n\t" /* a 0 bit falls here, after ~6 cycles */
        "out %[port], %[lo] \n\t"
        "nop \n\t nop \n\t nop \n\t nop \n\t nop \n\t nop \n\t"
        "out %[port], %[lo] \n\t" /* a 1 bit falls here, after ~13 cycles */
        "lsl %[b]           \n\t"
        "nop \n\t nop \n\t"
        "dec %[n]           \n\t"
        "brne 1b            \n\t"
        : [b] "+r"(b), [n] "+r"(n)
        : [port] "I"(_SFR_IO_ADDR(LED_PORT)), [hi] "r"(hi), [lo] "r"(lo));
}

void ws2812_show(const uint8_t *rgb, uint8_t n) {
    uint8_t i;
    cli();
    for (i = 0; i < n; i++) {
        send_byte(rgb[3 * i + 1]); /* G */
        send_byte(rgb[3 * i]);     /* R */
        send_byte(rgb[3 * i + 2]); /* B */
    }
    sei();
    _delay_us(60); /* latch */
}
