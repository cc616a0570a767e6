/** Valid EAN codes for test data; the check digit is src/vocabulary/ean.ts's, never computed again here. */
import { eanCheckDigit } from '../../src/vocabulary/ean.js';

/** A body (12 digits for an EAN-13) completed with its check digit. */
export const ean13 = (body: string): string => body + eanCheckDigit(body);

/** A distinct valid EAN-13 per serial: the prefix, the serial padded to 12 digits, the check digit. */
export const eanOf = (serial: number, prefix = '978'): string =>
  ean13(`${prefix}${String(serial).padStart(12 - prefix.length, '0')}`);
