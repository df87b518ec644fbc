//! Where shown text lands on the page, and what that makes between two strings: nothing when
//! one follows on from the other, a space after a gap, a newline on another baseline.

use lopdf::Object;

use super::pdf_font::number;
use super::ExtractError;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Matrix(pub [f64; 6]);

impl Matrix {
    pub const IDENTITY: Self = Self([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);

    pub fn translate(x: f64, y: f64) -> Self {
        Self([1.0, 0.0, 0.0, 1.0, x, y])
    }

    /// This transformation, then `next`.
    pub fn then(&self, next: &Self) -> Self {
        let [a, b, c, d, e, f] = self.0;
        let [na, nb, nc, nd, ne, nf] = next.0;
        Self([
            a * na + b * nc,
            a * nb + b * nd,
            c * na + d * nc,
            c * nb + d * nd,
            e * na + f * nc + ne,
            e * nb + f * nd + nf,
        ])
    }

    pub fn apply(&self, x: f64, y: f64) -> (f64, f64) {
        let [a, b, c, d, e, f] = self.0;
        (x * a + y * c + e, x * b + y * d + f)
    }

    pub fn from(operands: &[Object]) -> Option<Self> {
        numbers::<6>(operands).map(Self)
    }
}

/// The last `N` operands as numbers.
pub(super) fn numbers<const N: usize>(operands: &[Object]) -> Option<[f64; N]> {
    let tail = operands.get(operands.len().checked_sub(N)?..)?;
    let mut out = [0.0; N];
    for (slot, operand) in out.iter_mut().zip(tail) {
        *slot = number(operand)?;
    }
    Some(out)
}

/// Where a shown string ended, and how large and which way its text ran.
#[derive(Clone, Copy)]
pub(super) struct Placed {
    pub end: (f64, f64),
    pub direction: (f64, f64),
    pub size: f64,
}

pub(super) struct Text {
    page: String,
    used: usize,
    limit: usize,
    last: Option<Placed>,
    /// Strings shown that gave text, to tell a form that draws none.
    pub shown: u64,
}

impl Text {
    pub fn new(limit: usize) -> Self {
        Self {
            page: String::new(),
            used: 0,
            limit,
            last: None,
            shown: 0,
        }
    }

    pub fn place(
        &mut self,
        text: &str,
        start: (f64, f64),
        placed: Placed,
    ) -> Result<(), ExtractError> {
        if !text.is_empty() {
            self.shown += 1;
            let separator = self
                .last
                .and_then(|last| separator(&last, start, placed.size));
            let fresh = self.page.is_empty() || text.starts_with(char::is_whitespace);
            match separator {
                Some('\n') if !self.page.is_empty() && !self.page.ends_with('\n') => {
                    self.push("\n")?
                }
                Some(' ') if !fresh && !self.page.ends_with(char::is_whitespace) => {
                    self.push(" ")?
                }
                _ => {}
            }
            self.push(text)?;
        }
        self.last = Some(placed);
        Ok(())
    }

    fn push(&mut self, text: &str) -> Result<(), ExtractError> {
        self.used += text.len();
        if self.used > self.limit {
            return Err(ExtractError::TooMuchText { limit: self.limit });
        }
        self.page.push_str(text);
        Ok(())
    }

    pub fn take_page(&mut self) -> String {
        self.last = None;
        let mut page = std::mem::take(&mut self.page);
        page.truncate(page.trim_end().len());
        page
    }
}

/// A newline when the pen moved off the last string's baseline, a space when it jumped ahead
/// (or back) along it, nothing when the string follows on.
fn separator(last: &Placed, start: (f64, f64), size: f64) -> Option<char> {
    let size = [size, last.size]
        .into_iter()
        .filter(|s| s.is_finite() && *s > 0.0)
        .fold(0.0, f64::max);
    let size = if size > 0.0 { size } else { 1.0 };
    let (vx, vy) = (start.0 - last.end.0, start.1 - last.end.1);
    let (dx, dy) = last.direction;
    let along = vx * dx + vy * dy;
    let across = vx * dy - vy * dx;
    if !along.is_finite() || !across.is_finite() {
        Some(' ')
    } else if across.abs() > size * 0.5 {
        Some('\n')
    } else if along > size * 0.15 || along < -size {
        Some(' ')
    } else {
        None
    }
}
