//! Resource quantities with `k8s.io/apimachinery/pkg/api/resource.Quantity` parsing and rounding.
//!
//! The scheduler only ever reads `MilliValue()` (cpu) and `Value()` (everything else), both rounding
//! up to a whole unit. A [`Quantity`] keeps the exact decimal or binary value and offers both.

use core::fmt;

/// An exact quantity: `mantissa × 10^exp10 × 1024^exp1024`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quantity {
    mantissa: i128,
    exp10: i32,
    exp1024: u32,
}

/// Why a quantity string could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuantityError {
    /// The text that was given.
    pub text: alloc::string::String,
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (got {:?})",
            self.text
        )
    }
}

impl core::error::Error for QuantityError {}

impl Quantity {
    /// Zero.
    pub const ZERO: Quantity = Quantity {
        mantissa: 0,
        exp10: 0,
        exp1024: 0,
    };

    /// A whole number of base units.
    pub fn from_value(value: i64) -> Quantity {
        Quantity {
            mantissa: value as i128,
            exp10: 0,
            exp1024: 0,
        }
    }

    /// A number of thousandths of a unit (millicores for cpu).
    pub fn from_milli(milli: i64) -> Quantity {
        Quantity {
            mantissa: milli as i128,
            exp10: -3,
            exp1024: 0,
        }
    }

    /// Parses the canonical and non-canonical forms the API accepts: `1`, `0.5`, `500m`, `2Gi`, `1e3`, `1.5k`.
    pub fn parse(text: &str) -> Result<Quantity, QuantityError> {
        let error = || QuantityError {
            text: alloc::string::String::from(text),
        };
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.len() > 64 {
            return Err(error());
        }
        let (negative, rest) = match trimmed.as_bytes()[0] {
            b'-' => (true, &trimmed[1..]),
            b'+' => (false, &trimmed[1..]),
            _ => (false, trimmed),
        };
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, suffix) = rest.split_at(number_end);
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return Err(error());
        }
        let mut mantissa: i128 = 0;
        let mut exp10: i32 = 0;
        let mut after_point = false;
        for c in number.chars() {
            if c == '.' {
                after_point = true;
                continue;
            }
            // Digits past what i128 holds are dropped and compensated in the exponent (rounding is
            // then done by the callers, which round up, like apimachinery's inf.Dec rounding).
            if mantissa < i128::MAX / 100 {
                mantissa = mantissa * 10 + (c as u8 - b'0') as i128;
                if after_point {
                    exp10 -= 1;
                }
            } else if !after_point {
                exp10 += 1;
            }
        }
        let mut exp1024 = 0;
        match suffix {
            "" => {}
            "n" => exp10 -= 9,
            "u" => exp10 -= 6,
            "m" => exp10 -= 3,
            "k" => exp10 += 3,
            "M" => exp10 += 6,
            "G" => exp10 += 9,
            "T" => exp10 += 12,
            "P" => exp10 += 15,
            "E" => exp10 += 18,
            "Ki" => exp1024 = 1,
            "Mi" => exp1024 = 2,
            "Gi" => exp1024 = 3,
            "Ti" => exp1024 = 4,
            "Pi" => exp1024 = 5,
            "Ei" => exp1024 = 6,
            _ if suffix.starts_with(['e', 'E']) => {
                let exponent: i32 = suffix[1..].parse().map_err(|_| error())?;
                if !(-100..=100).contains(&exponent) {
                    return Err(error());
                }
                exp10 += exponent;
            }
            _ => return Err(error()),
        }
        Ok(Quantity {
            mantissa: if negative { -mantissa } else { mantissa },
            exp10,
            exp1024,
        })
    }

    /// The value scaled by `10^scale` and rounded up (toward +infinity), saturating at the i64 range.
    fn scaled_ceil(&self, scale: i32) -> i64 {
        if self.mantissa == 0 {
            return 0;
        }
        let mut numerator: i128 = self.mantissa;
        let mut denominator: i128 = 1;
        let exp = self.exp10 + scale;
        for _ in 0..self.exp1024 {
            numerator = numerator.saturating_mul(1024);
        }
        if exp >= 0 {
            for _ in 0..exp.min(40) {
                numerator = numerator.saturating_mul(10);
            }
        } else {
            for _ in 0..(-exp).min(38) {
                denominator *= 10;
            }
        }
        let quotient = numerator.div_euclid(denominator);
        let rounded = if numerator.rem_euclid(denominator) != 0 {
            quotient + 1
        } else {
            quotient
        };
        rounded.clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }

    /// `Quantity.Value()`: whole units, rounded up.
    pub fn value(&self) -> i64 {
        self.scaled_ceil(0)
    }

    /// `Quantity.MilliValue()`: thousandths, rounded up.
    pub fn milli_value(&self) -> i64 {
        self.scaled_ceil(3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_common_forms() {
        assert_eq!(Quantity::parse("500m").unwrap().milli_value(), 500);
        assert_eq!(Quantity::parse("1").unwrap().milli_value(), 1000);
        assert_eq!(Quantity::parse("0.5").unwrap().milli_value(), 500);
        assert_eq!(
            Quantity::parse("2Gi").unwrap().value(),
            2 * 1024 * 1024 * 1024
        );
        assert_eq!(Quantity::parse("1k").unwrap().value(), 1000);
        assert_eq!(Quantity::parse("1e3").unwrap().value(), 1000);
        assert_eq!(Quantity::parse("200Mi").unwrap().value(), 209_715_200);
    }

    #[test]
    fn rounds_up() {
        assert_eq!(Quantity::parse("0.5m").unwrap().milli_value(), 1);
        assert_eq!(Quantity::parse("1500m").unwrap().value(), 2);
        assert_eq!(Quantity::parse("-1500m").unwrap().value(), -1);
    }

    #[test]
    fn rejects_garbage() {
        for bad in ["", "abc", "1..2", "1x", "1Gb", "--1", "."] {
            assert!(Quantity::parse(bad).is_err(), "{bad}");
        }
    }
}
