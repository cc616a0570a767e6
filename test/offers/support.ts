/** The textbooks the offers tests sell, by subject: EAN-13s with valid check digits. */
export const MATH = '9789001891442';
export const ENGLISH = '9780194837125';
export const PHYSICS = '9789034523716';
export const HISTORY = '9789001774363';
