/*
 * uart.c - 115200 8N1 on USART0 with receive and transmit ring buffers.
 *
 * Both directions are interrupt driven so that sending a reading never
 * delays the next HX711 read, and a command arriving while we clock the
 * load cells is not lost. At 16 MHz, 115200 baud needs double speed (U2X)
 * for a 2.1 % error, well within what the USB bridges accept.
 */
#include "uart.h"

#include <avr/interrupt.h>
#include <avr/io.h>

#include "board.h"

#define RX_SIZE 128 /* powers of two: the index wraps with a mask */
#define TX_SIZE 256

static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint8_t rx_head, rx_tail;
static volatile uint8_t tx_buf[TX_SIZE];
static volatile uint8_t tx_head, tx_tail;

void uart_init(void) {
    uint16_t ubrr = (uint16_t)((F_CPU / (8UL * BAUD)) - 1); /* double speed */
    /* U2X first, then the divisor: simavr derives the baud rate when UBRR is
     * written, and the order makes no difference to the real chip. */
    UCSR0A = (1 << U2X0);
    UBRR0H = (uint8_t)(ubrr >> 8);
    UBRR0L = (uint8_t)ubrr;
    UCSR0C = (1 << UCSZ01) | (1 << UCSZ00);
    UCSR0B = (1 << RXEN0) | (1 << TXEN0) | (1 << RXCIE0);
}

ISR(USART_RX_vect) {
    uint8_t c = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1) & (RX_SIZE - 1));
    if (next != rx_tail) { /* full: drop the byte; the host sees a CRC error */
        rx_buf[rx_head] = c;
        rx_head = next;
    }
}

ISR(USART_UDRE_vect) {
    if (tx_head == tx_tail) {
        UCSR0B &= ~(1 << UDRIE0);
        return;
    }
    UDR0 = tx_buf[tx_tail];
    tx_tail = (uint8_t)(tx_tail + 1); /* TX_SIZE is 256: wraps by itself */
}

void uart_write(const uint8_t *data, uint8_t len) {
    while (len--) {
        uint8_t next = (uint8_t)(tx_head + 1);
        while (next == tx_tail) {
            /* buffer full: wait for the interrupt to drain it */
        }
        tx_buf[tx_head] = *data++;
        tx_head = next;
        UCSR0B |= (1 << UDRIE0);
    }
}

uint8_t uart_tx_free(void) {
    /* One slot stays empty to tell a full buffer from an empty one. */
    return (uint8_t)(TX_SIZE - 1 - (uint8_t)(tx_head - tx_tail));
}

int16_t uart_read(void) {
    uint8_t c;
    if (rx_head == rx_tail) {
        return -1;
    }
    c = rx_buf[rx_tail];
    rx_tail = (uint8_t)((rx_tail + 1) & (RX_SIZE - 1));
    return c;
}
