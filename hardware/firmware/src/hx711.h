/* hx711.h - 14 HX711 load-cell amplifiers on a shared clock (see hx711.c). */
#ifndef HX711_H
#define HX711_H

#include <stdint.h>

#include "board.h"

void hx711_init(void);
/* Drive the shared RATE line: 80 -> 80 samples/s, anything else -> 10. */
void hx711_set_rate(uint8_t rate_hz);
/* Bit k set when channel k has a conversion ready (its DOUT is low). */
uint16_t hx711_ready_mask(void);
/* Clock out one reading of every channel (sign-extended 24-bit values). */
void hx711_read_all(int32_t raw[N_CHANNELS]);

#endif
