//! A document tree read into its typed API struct in one layer: the deserializer over the
//! `serde_json::Value` tracks where it is, so a type error is named at its field path
//! (`spec.replicas`) and each field the struct ignores can be reported (`kubectl apply
//! --validate`). It does in one pass what `serde_path_to_error` around `serde_ignored` around
//! the tree's own deserializer did in three: every API type's `Deserialize` code is compiled
//! once, for this deserializer, instead of once per layer of the stack. The wasm modules carry
//! every Kubernetes type the loader reads: the policy module was 3.75 MB with the stack, 3.14 MB
//! with this reader.
//!
//! Values are read as the tree's own deserializer reads them: scalars and enums are handed to
//! it, and maps, sequences, options and newtypes are walked here the way it walks them (a struct
//! also reads from a sequence; entries left unread are an error). Messages are its messages.
//! Where the two stacks could differ, no type the loader reads goes: map keys are read as
//! strings (serde_json would also parse a number key for an integer-keyed map; every map key of
//! the API types is a string), an error raised by a key is placed at its mapping, and an enum's
//! data is read by the tree untracked (no API type has an enum: `IntOrString` and `Quantity`
//! read through `deserialize_any`).

use serde::de::value::StrDeserializer;
use serde::de::{self, DeserializeSeed, Unexpected, Visitor};
use serde_json::{Error, Map, Value};

/// A value's place: the document root, or a key of a mapping or an index of a sequence below
/// its parent (a chain built on the stack as the reader descends, written out only when a
/// message needs it).
#[derive(Clone, Copy)]
enum Where<'p> {
    Root,
    Key(&'p Where<'p>, &'p str),
    Index(&'p Where<'p>, usize),
}

impl Where<'_> {
    /// The path of a failure as `serde_path_to_error` writes it: `spec.containers[0].name`,
    /// empty at the root, a `.` before every key but the first.
    fn text(&self) -> String {
        self.write(&|text, key| {
            if !text.is_empty() {
                text.push('.');
            }
            text.push_str(key);
        })
    }

    /// The path of an unknown field as the rest of spreadlab joins paths (`join_path`): no `.`
    /// before an empty key or one that starts with `[`.
    fn field_text(&self) -> String {
        self.write(&|text, key| {
            if !text.is_empty() && !key.is_empty() && !key.starts_with('[') {
                text.push('.');
            }
            text.push_str(key);
        })
    }

    fn write(&self, push_key: &dyn Fn(&mut String, &str)) -> String {
        let mut chain = Vec::new();
        let mut at = self;
        while let Where::Key(parent, _) | Where::Index(parent, _) = at {
            chain.push(at);
            at = parent;
        }
        let mut text = String::new();
        for step in chain.into_iter().rev() {
            match step {
                Where::Key(_, key) => push_key(&mut text, key),
                Where::Index(_, index) => text.push_str(&format!("[{index}]")),
                Where::Root => {}
            }
        }
        text
    }
}

/// What a read found besides its value.
#[derive(Default)]
struct Findings {
    /// The paths of the fields the typed struct ignored, when asked for.
    unknown: Option<Vec<String>>,
    /// The path of the innermost value whose read failed.
    error_path: Option<String>,
}

/// `T` read from `value`; on failure, the error and the path of the value it is about. With
/// `unknown_fields`, the paths of the fields `T` has no place for are returned too (in document
/// order), else none.
pub(crate) fn read_typed<T: de::DeserializeOwned>(
    value: Value,
    unknown_fields: bool,
) -> Result<(T, Vec<String>), (String, Error)> {
    let mut findings = Findings {
        unknown: unknown_fields.then(Vec::new),
        error_path: None,
    };
    let root = Where::Root;
    let read = T::deserialize(Reader {
        value,
        at: &root,
        findings: &mut findings,
    });
    match read {
        Ok(typed) => Ok((typed, findings.unknown.unwrap_or_default())),
        Err(error) => Err((findings.error_path.unwrap_or_default(), error)),
    }
}

/// One value of the tree, at its place.
struct Reader<'p, 'f> {
    value: Value,
    at: &'p Where<'p>,
    findings: &'f mut Findings,
}

/// serde_json's `Value::unexpected` (private there): what a type error says the value was.
fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                Unexpected::Unsigned(u)
            } else if let Some(i) = n.as_i64() {
                Unexpected::Signed(i)
            } else {
                Unexpected::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

impl<'p, 'f> Reader<'p, 'f> {
    fn invalid_type(&self, expected: &dyn de::Expected) -> Error {
        de::Error::invalid_type(unexpected(&self.value), expected)
    }

    /// A mapping's entries to `visitor` (serde_json's `visit_object`).
    fn visit_object<'de, V: Visitor<'de>>(
        object: Map<String, Value>,
        at: &'p Where<'p>,
        findings: &'f mut Findings,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let mut entries = Entries::new(object, at, findings);
        let value = visitor.visit_map(&mut entries)?;
        entries.finish().map(|()| value)
    }

    /// A sequence's items to `visitor` (serde_json's `visit_array`).
    fn visit_array<'de, V: Visitor<'de>>(
        array: Vec<Value>,
        at: &'p Where<'p>,
        findings: &'f mut Findings,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let mut items = Items::new(array, at, findings);
        let value = visitor.visit_seq(&mut items)?;
        items.finish().map(|()| value)
    }
}

/// `value`'s read by `seed` at `at`: a failure's path is recorded if no deeper one was.
fn read_at<'de, S: DeserializeSeed<'de>>(
    seed: S,
    value: Value,
    at: &Where<'_>,
    findings: &mut Findings,
) -> Result<S::Value, Error> {
    let read = seed.deserialize(Reader {
        value,
        at,
        findings: &mut *findings,
    });
    if read.is_err() {
        findings.failed_at(at);
    }
    read
}

impl Findings {
    /// A read failed at `at`: its path, unless a deeper read failed first (the error passes up
    /// through every level).
    #[cold]
    fn failed_at(&mut self, at: &Where<'_>) {
        if self.error_path.is_none() {
            self.error_path = Some(at.text());
        }
    }
}

/// Scalars (and enums) are read by the tree's own deserializer: the same visits, the same errors.
macro_rules! by_the_tree {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.value.$method(visitor)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Reader<'_, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Object(object) => Self::visit_object(object, self.at, self.findings, visitor),
            Value::Array(array) => Self::visit_array(array, self.at, self.findings, visitor),
            scalar => scalar.deserialize_any(visitor),
        }
    }

    by_the_tree! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_bytes deserialize_byte_buf deserialize_unit
        deserialize_identifier
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.value.deserialize_unit_struct(name, visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(array) => Self::visit_array(array, self.at, self.findings, visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Object(object) => Self::visit_object(object, self.at, self.findings, visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Value::Object(object) => Self::visit_object(object, self.at, self.findings, visitor),
            Value::Array(array) => Self::visit_array(array, self.at, self.findings, visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.value.deserialize_enum(name, variants, visitor)
    }

    /// A value the struct has no field for: its path is an unknown field.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if let Some(unknown) = self.findings.unknown.as_mut() {
            unknown.push(self.at.field_text());
        }
        visitor.visit_unit()
    }
}

/// A mapping's entries, each value read at its key.
struct Entries<'p, 'f> {
    iter: serde_json::map::IntoIter,
    /// How many entries the mapping has.
    len: usize,
    /// The entry whose key was read and whose value is next.
    pending: Option<(String, Value)>,
    at: &'p Where<'p>,
    findings: &'f mut Findings,
}

impl<'p, 'f> Entries<'p, 'f> {
    fn new(object: Map<String, Value>, at: &'p Where<'p>, findings: &'f mut Findings) -> Self {
        Entries {
            len: object.len(),
            iter: object.into_iter(),
            pending: None,
            at,
            findings,
        }
    }

    /// The next entry's key (its value is kept for `next_value_seed`).
    fn next_key(&mut self) -> Option<&str> {
        let (key, value) = self.iter.next()?;
        Some(&self.pending.insert((key, value)).0)
    }

    /// The visitor is done: every entry must have been read.
    fn finish(self) -> Result<(), Error> {
        all_read(self.iter.len(), self.len, "fewer elements in map")
    }
}

impl<'de> de::MapAccess<'de> for Entries<'_, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.next_key() {
            Some(key) => seed
                .deserialize(StrDeserializer::<Error>::new(key))
                .map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let Some((key, value)) = self.pending.take() else {
            return Err(de::Error::custom("value is missing"));
        };
        let at = Where::Key(self.at, &key);
        read_at(seed, value, &at, self.findings)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// serde_json's check after a visitor read a mapping or sequence of `len` values: none of them
/// is `left` unread (`expected` names what the visitor should have asked for instead).
fn all_read(left: usize, len: usize, expected: &'static str) -> Result<(), Error> {
    if left == 0 {
        Ok(())
    } else {
        Err(de::Error::invalid_length(len, &expected))
    }
}

/// A sequence's items, each read at its index.
struct Items<'p, 'f> {
    iter: std::vec::IntoIter<Value>,
    /// How many items the sequence has.
    len: usize,
    index: usize,
    at: &'p Where<'p>,
    findings: &'f mut Findings,
}

impl<'p, 'f> Items<'p, 'f> {
    fn new(array: Vec<Value>, at: &'p Where<'p>, findings: &'f mut Findings) -> Self {
        Items {
            len: array.len(),
            iter: array.into_iter(),
            index: 0,
            at,
            findings,
        }
    }

    /// The visitor is done: every item must have been read.
    fn finish(self) -> Result<(), Error> {
        all_read(self.iter.len(), self.len, "fewer elements in array")
    }
}

impl<'de> de::SeqAccess<'de> for Items<'_, '_> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        let Some(value) = self.iter.next() else {
            return Ok(None);
        };
        let at = Where::Index(self.at, self.index);
        self.index += 1;
        read_at(seed, value, &at, self.findings).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

#[cfg(test)]
mod tests;
