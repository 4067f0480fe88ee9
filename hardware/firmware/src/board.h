/*
 * board.h - pin map and constants of the Oware sensor board (ATmega328P, 16 MHz).
 *
 * 14 HX711 load-cell amplifiers share one clock line (SCK) and one RATE
 * line; each has its own data line (DOUT). Channel order is the host's:
 * pits 0-11 in sowing order (South A-F = 0-5, North a-f = 6-11), then the
 * stores (South = 12, North = 13).
 *
 *   channel  0- 5  DOUT on PC0-PC5   (Arduino A0-A5)
 *   channel  6-11  DOUT on PB0-PB5   (Arduino D8-D13)
 *   channel 12     DOUT on PD4       (Arduino D4)
 *   channel 13     DOUT on PD5       (Arduino D5)
 *   SCK (all)      PD2               (Arduino D2)
 *   WS2812 data    PD3               (Arduino D3)
 *   tare button    PD6 to GND        (Arduino D6, internal pull-up)
 *   RATE (all)     PD7               (Arduino D7): high = 80 samples/s, low = 10
 *   UART           PD0/PD1 via the board's USB-serial bridge, 115200 8N1
 *
 * See hardware/WIRING.md for the full diagram.
 */
#ifndef BOARD_H
#define BOARD_H

#include <avr/io.h>

#define FW_MAJOR 1
#define FW_MINOR 0
#define FW_PATCH 0
#define PROTOCOL_VERSION 1

#define N_PITS 12
#define N_STORES 2
#define N_CHANNELS 14
#define N_LEDS 12

#define BAUD 115200UL

#define SCK_PORT PORTD
#define SCK_DDR DDRD
#define SCK_BIT PD2

#define LED_PORT PORTD
#define LED_DDR DDRD
#define LED_BIT PD3

#define RATE_PORT PORTD
#define RATE_DDR DDRD
#define RATE_BIT PD7

#define BUTTON_PIN PIND
#define BUTTON_PORT PORTD
#define BUTTON_BIT PD6

/* DOUT masks per port (the channel of each bit is fixed by the pin map above). */
#define DOUT_MASK_C 0x3F /* PC0-PC5: channels 0-5 */
#define DOUT_MASK_B 0x3F /* PB0-PB5: channels 6-11 */
#define DOUT_MASK_D ((1 << PD4) | (1 << PD5)) /* channels 12, 13 */

/* Default scale before calibration: raw HX711 counts per gram of a typical
 * 1 kg bar load cell at gain 128 and 5 V excitation. */
#define DEFAULT_SCALE 420.0f

#endif
