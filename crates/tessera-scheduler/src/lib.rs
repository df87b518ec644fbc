//! Pure scheduling logic, no I/O (seed 000 sections 4–6, seed 001): the precedence graph from
//! `requiredAfter`, `${…}` references and read/write conflicts; execution modes; the condition
//! language; instruction sets. Filled in by the scheduler issue.
