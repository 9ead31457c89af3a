//! A YAML document's events into a `serde_json::Value` tree, bounded: every value produced
//! (alias expansions included) is counted against a budget and nesting is limited; merge keys
//! (`<<`) are resolved as kubectl's YAML reader resolves them.

use core::cell::Cell;
use core::fmt;

use serde::de::{self, DeserializeSeed, Visitor};
use serde_json::{Map, Number, Value};

use crate::raw::too_deep_message;

/// Builds a [`Value`] while counting values against a shared budget and limiting depth, and
/// resolves YAML merge keys (`<<`), as kubectl's YAML reader does.
pub(super) struct Bounded<'a> {
    pub(super) budget: &'a Cell<usize>,
    pub(super) depth: usize,
    pub(super) max_depth: usize,
}

impl Bounded<'_> {
    fn spend<E: de::Error>(&self) -> Result<(), E> {
        match self.budget.get().checked_sub(1) {
            Some(left) => {
                self.budget.set(left);
                Ok(())
            }
            None => Err(E::custom(
                "YAML aliases expand to too many values; rejected (alias bomb)",
            )),
        }
    }

    /// Enters a mapping or sequence at this depth (the document's root container is level 1).
    fn enter<E: de::Error>(&self) -> Result<(), E> {
        if self.depth >= self.max_depth {
            return Err(E::custom(too_deep_message(self.max_depth)));
        }
        self.spend()
    }

    fn child(&self) -> Bounded<'_> {
        Bounded {
            budget: self.budget,
            depth: self.depth + 1,
            max_depth: self.max_depth,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Bounded<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

fn float<E: de::Error>(value: f64) -> Result<Value, E> {
    Number::from_f64(value)
        .map(Value::Number)
        .ok_or_else(|| E::custom(format!("number {value} has no JSON form")))
}

impl<'de> Visitor<'de> for Bounded<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value with a JSON form")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::Bool(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::Number(value.into()))
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<Value, E> {
        self.spend()?;
        float(value as f64)
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<Value, E> {
        self.spend()?;
        float(value as f64)
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value, E> {
        self.spend()?;
        float(value)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::String(value))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.spend()?;
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_some<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_newtype_struct<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.enter()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self.child())? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.enter()?;
        let mut entries = Map::new();
        let mut merges = Vec::new();
        while let Some(key) = map.next_key_seed(Key {
            budget: self.budget,
        })? {
            let value = map.next_value_seed(self.child())?;
            if key == "<<" {
                merges.push(value);
            } else {
                entries.insert(key, value);
            }
        }
        // YAML merge keys: explicit keys win, then earlier merged maps over later ones.
        for merge in merges {
            let sources = match merge {
                Value::Object(source) => vec![source],
                Value::Array(items) => items
                    .into_iter()
                    .map(|item| match item {
                        Value::Object(source) => Ok(source),
                        _ => Err(de::Error::custom(
                            "a `<<` merge sequence must hold mappings only",
                        )),
                    })
                    .collect::<Result<_, _>>()?,
                _ => {
                    return Err(de::Error::custom(
                        "a `<<` merge value must be a mapping or a sequence of mappings",
                    ));
                }
            };
            for source in sources {
                for (key, value) in source {
                    entries.entry(key).or_insert(value);
                }
            }
        }
        Ok(Value::Object(entries))
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        let (tag, _variant): (String, A::Variant) = data.variant()?;
        Err(de::Error::custom(format!(
            "YAML tag `{tag}` is not supported"
        )))
    }
}

/// A mapping key: scalars become strings (`80: http` → `"80"`), as kubectl's YAML-to-JSON does.
struct Key<'a> {
    budget: &'a Cell<usize>,
}

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = String;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a scalar mapping key")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<String, E> {
        Ok(value.to_string())
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<String, E> {
        Ok(value.to_string())
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<String, E> {
        Ok(value.to_string())
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<String, E> {
        Ok(value.to_string())
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<String, E> {
        Bounded {
            budget: self.budget,
            depth: 0,
            max_depth: 0,
        }
        .spend::<E>()?;
        Ok(value.to_owned())
    }

    fn visit_unit<E: de::Error>(self) -> Result<String, E> {
        Ok(String::from("null"))
    }
}
