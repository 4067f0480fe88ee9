/*
 * hx711.c - read 14 HX711 amplifiers at once over a shared clock line.
 *
 * An HX711 pulls DOUT low when a conversion is ready. Each rising edge of
 * SCK then shifts out the next bit, most significant first; 24 pulses give
 * the 24-bit two's complement reading, and a 25th selects channel A at gain
 * 128 for the next conversion. Because all chips share SCK and convert at
 * the same rate, we clock them together and sample the three input ports on
 * every pulse: one read costs about 150 microseconds for all 14 channels.
 *
 * SCK must not stay high for more than 60 us or the chips power down, so
 * interrupts are off while it is high (a UART interrupt could stretch it).
 */
#include "hx711.h"

#include <avr/interrupt.h>
#include <util/delay.h>

#include "board.h"

void hx711_init(void) {
    SCK_DDR |= (1 << SCK_BIT);
    SCK_PORT &= ~(1 << SCK_BIT);
    RATE_DDR |= (1 << RATE_BIT);
    DDRC &= ~DOUT_MASK_C;
    DDRB &= ~DOUT_MASK_B;
    DDRD &= ~DOUT_MASK_D;
    /* No pull-ups: the HX711 drives DOUT push-pull. */
    PORTC &= ~DOUT_MASK_C;
    PORTB &= ~DOUT_MASK_B;
    PORTD &= ~DOUT_MASK_D;
}

void hx711_set_rate(uint8_t rate_hz) {
    if (rate_hz == 80) {
        RATE_PORT |= (1 << RATE_BIT);
    } else {
        RATE_PORT &= ~(1 << RATE_BIT);
    }
}

uint16_t hx711_ready_mask(void) {
    /* A channel is ready when its DOUT is low. */
    uint8_t c = ~PINC & DOUT_MASK_C;
    uint8_t b = ~PINB & DOUT_MASK_B;
    uint8_t d = ~PIND & DOUT_MASK_D;
    return (uint16_t)c | ((uint16_t)b << 6) | ((uint16_t)(d >> PD4) << 12);
}

void hx711_read_all(int32_t raw[N_CHANNELS]) {
    uint32_t acc[N_CHANNELS];
    uint8_t ch, bit;
    for (ch = 0; ch < N_CHANNELS; ch++) {
        acc[ch] = 0;
    }
    for (bit = 0; bit < 25; bit++) {
        uint8_t c, b, d;
        cli();
        SCK_PORT |= (1 << SCK_BIT);
        _delay_us(1); /* DOUT settles 0.1 us after the rising edge */
        c = PINC;
        b = PINB;
        d = PIND;
        SCK_PORT &= ~(1 << SCK_BIT);
        sei();
        if (bit == 24) {
            break; /* the 25th pulse only selects gain 128 for the next conversion */
        }
        for (ch = 0; ch < 6; ch++) {
            acc[ch] = (acc[ch] << 1) | ((c >> ch) & 1);
            acc[ch + 6] = (acc[ch + 6] << 1) | ((b >> ch) & 1);
        }
        acc[12] = (acc[12] << 1) | ((d >> PD4) & 1);
        acc[13] = (acc[13] << 1) | ((d >> PD5) & 1);
    }
    for (ch = 0; ch < N_CHANNELS; ch++) {
        /* Sign-extend 24 to 32 bits. */
        uint32_t v = acc[ch];
        if (v & 0x800000UL) {
            v |= 0xFF000000UL;
        }
        raw[ch] = (int32_t)v;
    }
}
