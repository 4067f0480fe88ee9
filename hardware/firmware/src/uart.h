/* uart.h - interrupt-driven UART with ring buffers (see uart.c). */
#ifndef UART_H
#define UART_H

#include <stdint.h>

void uart_init(void);
/* Queue bytes for sending; waits only when the transmit buffer is full. */
void uart_write(const uint8_t *data, uint8_t len);
/* Bytes that can be queued right now without waiting. */
uint8_t uart_tx_free(void);
/* Next received byte, or -1 if none is waiting. */
int16_t uart_read(void);

#endif
