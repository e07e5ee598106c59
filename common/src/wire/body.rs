//! Reading a JSON request body so that every property that cannot be read is reported, not
//! only the first. serde stops at the first property it cannot read; a body that fails is
//! read again, from its parsed JSON, by a deserializer that notes each property that is
//! missing or of the wrong type and hands the type a stand-in for it (`""`, `0`, the first
//! variant…), so that the rest of the body is read, and then checked, as well.
//!
//! What is required is learnt from the type's own `Deserialize` (serde reports a missing
//! field at the end of its object): the reader then asks again, with the property as a
//! stand-in, so no second list of required properties exists to fall out of step. A value a
//! type refuses after taking it (a UUID that does not parse) is learnt the same way.
//! The passes are bounded: what is still unread after them is reported as it stands.

use std::cell::{Cell, RefCell};

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, Expected, MapAccess,
    SeqAccess, VariantAccess, Visitor, value::BorrowedStrDeserializer,
};
use serde_json::{Error as JsonError, Map, Value};

use crate::error::{Error, Problem, within};

/// A body as read: its value, and each property that could not be read (`value` holds a
/// stand-in there, never to be stored: a body with problems is refused).
#[derive(Debug)]
pub struct Parsed<T> {
    pub value: T,
    pub problems: Vec<Problem>,
}

impl<T> Parsed<T> {
    /// A value read without a problem (or made without reading, by the console or the CLI).
    pub fn whole(value: T) -> Self {
        Self {
            value,
            problems: Vec::new(),
        }
    }

    /// The value, when every property could be read; else every problem.
    pub fn into_value(self) -> Result<T, Error> {
        if self.problems.is_empty() {
            Ok(self.value)
        } else {
            Err(Error::Invalid(self.problems))
        }
    }
}

/// The largest body read again to find every problem: the second reading builds the body's
/// whole JSON tree, some ten times its size, so a larger one (a bulk send's rows) is answered
/// with its first problem alone.
const MAX_LENIENT_BYTES: usize = 1024 * 1024;

/// Reads `bytes`, one JSON value with nothing after it, as a `T`. `Err`: nothing could be
/// read as a `T` (not JSON, or a problem the reader cannot step over).
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<Parsed<T>, Vec<Problem>> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let refused = match serde_path_to_error::deserialize(&mut deserializer) {
        Ok(value) => {
            deserializer.end().map_err(|_| {
                vec![Problem::new(
                    "",
                    "must be one JSON value with nothing after it",
                )]
            })?;
            return Ok(Parsed::whole(value));
        }
        Err(refused) => refused,
    };
    let first = body_problem(&path_of(refused.path()), refused.inner());
    if refused.inner().classify() != serde_json::error::Category::Data
        || bytes.len() > MAX_LENIENT_BYTES
    {
        return Err(vec![first]);
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => read_leniently(&value, first),
        Err(_) => Err(vec![first]),
    }
}

/// Reads a JSON value as a `T`, as [`parse`] reads a body (the console's forms are made into
/// the API's bodies and read by this, so that both require the same properties).
pub fn parse_value<T: DeserializeOwned>(value: &Value) -> Result<Parsed<T>, Vec<Problem>> {
    match serde_path_to_error::deserialize(value) {
        Ok(read) => Ok(Parsed::whole(read)),
        Err(refused) => {
            let first = body_problem(&path_of(refused.path()), refused.inner());
            read_leniently(value, first)
        }
    }
}

/// serde_path_to_error's path as the problems name it: `.` (the body) and `?` (JSON that broke
/// before any property was named) are the body, `""`.
fn path_of(path: &serde_path_to_error::Path) -> String {
    match path.to_string() {
        root if root == "." || root == "?" => String::new(),
        path => path,
    }
}

/// How many times a body that serde refused is read again, each time knowing one more
/// property that needs a stand-in. Most bodies need one or two.
const MAX_PASSES: usize = 16;

/// `value`, which serde refused with `first`, read again to find every problem.
fn read_leniently<T: DeserializeOwned>(
    value: &Value,
    first: Problem,
) -> Result<Parsed<T>, Vec<Problem>> {
    let learnt = Learnt::default();
    let mut passes = 0;
    loop {
        passes += 1;
        let pass = Pass {
            learnt: &learnt,
            problems: RefCell::default(),
            unwinding: Cell::new(false),
            learnt_more: Cell::new(false),
        };
        let read = T::deserialize(Node {
            value: Some(value),
            path: String::new(),
            pass: &pass,
        });
        let mut problems = pass.problems.into_inner();
        // serde's own account stays the first word, should this reading have missed it.
        if !problems.iter().any(|p| within(&first.field, &p.field)) {
            problems.insert(0, first.clone());
        }
        match read {
            Ok(value) => return Ok(Parsed { value, problems }),
            Err(_) if pass.learnt_more.get() && passes < MAX_PASSES => continue,
            Err(_) => return Err(problems),
        }
    }
}

/// What earlier passes learnt needs a stand-in.
#[derive(Default)]
struct Learnt {
    /// (struct, property): serde said the property is required.
    required: RefCell<Vec<(&'static str, &'static str)>>,
    /// (path, reason): the type refused the value there.
    refused: RefCell<Vec<(String, String)>>,
}

struct Pass<'l> {
    learnt: &'l Learnt,
    problems: RefCell<Vec<Problem>>,
    /// An error is on its way out, noted by the deserializer it started in.
    unwinding: Cell<bool>,
    learnt_more: Cell<bool>,
}

impl Pass<'_> {
    /// Notes a problem, unless one already noted holds it (a missing object's properties).
    fn note(&self, field: &str, reason: impl Into<String>) {
        let mut problems = self.problems.borrow_mut();
        if !problems.iter().any(|p| within(field, &p.field)) {
            problems.push(Problem::new(field, reason));
        }
    }

    fn refused_at(&self, path: &str) -> Option<String> {
        let refused = self.learnt.refused.borrow();
        refused
            .iter()
            .find(|(at, _)| at == path)
            .map(|(_, reason)| reason.clone())
    }

    /// Notes the error that stops this pass where it starts, and learns what to do instead.
    fn stopped<T>(&self, path: &str, result: Result<T, JsonError>) -> Result<T, JsonError> {
        if let Err(error) = &result
            && !self.unwinding.replace(true)
        {
            let problem = body_problem(path, error);
            self.note(&problem.field, problem.reason.clone());
            let mut refused = self.learnt.refused.borrow_mut();
            if !refused.iter().any(|(at, _)| at == path) {
                refused.push((path.to_owned(), problem.reason));
                self.learnt_more.set(true);
            }
        }
        result
    }

    /// [`Self::stopped`] for the end of an object of struct `name`, where serde reports the
    /// first required property that is missing.
    fn object_stopped<T>(
        &self,
        name: &'static str,
        fields: &'static [&'static str],
        path: &str,
        result: Result<T, JsonError>,
    ) -> Result<T, JsonError> {
        let missing = result.as_ref().err().and_then(|error| {
            let text = error.to_string();
            let quoted = text.strip_prefix("missing field `")?.split('`').next()?;
            fields.iter().find(|f| **f == quoted).copied()
        });
        match missing {
            Some(field) if !self.unwinding.get() => {
                self.unwinding.set(true);
                self.note(&property(path, field), "is required");
                let mut required = self.learnt.required.borrow_mut();
                if !required.contains(&(name, field)) {
                    required.push((name, field));
                    self.learnt_more.set(true);
                }
                result
            }
            _ => self.stopped(path, result),
        }
    }
}

fn property(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// One value of the body, or a required property it lacks (`None`), at `path`.
struct Node<'v, 'p> {
    value: Option<&'v Value>,
    path: String,
    pass: &'p Pass<'p>,
}

/// What a type expects, as the problems say it: `must be a string`.
fn wrong_type(expected: &dyn Expected) -> String {
    format!("must be {}", plain_type(&expected.to_string()))
}

impl<'v, 'p> Node<'v, 'p> {
    /// Reads the value with `read` when `accepts` it; otherwise notes why not and gives the
    /// visitor `stand_in`.
    fn read<V: Visitor<'v>>(
        self,
        visitor: V,
        accepts: impl FnOnce(&Value) -> bool,
        read: impl FnOnce(&'v Value, V) -> Result<V::Value, JsonError>,
        stand_in: impl FnOnce(V) -> Result<V::Value, JsonError>,
    ) -> Result<V::Value, JsonError> {
        let reason = match self.value {
            None => "is required".to_owned(),
            Some(value) => match self.pass.refused_at(&self.path) {
                Some(reason) => reason,
                None if accepts(value) => {
                    let read = read(value, visitor);
                    return self.pass.stopped(&self.path, read);
                }
                None => wrong_type(&visitor),
            },
        };
        self.pass.note(&self.path, reason);
        let read = stand_in(visitor);
        // A type that refuses its stand-in too (a UUID) ends the reading here.
        if read.is_err() {
            self.pass.unwinding.set(true);
        }
        read
    }

    fn child(&self, value: Option<&'v Value>, path: String) -> Node<'v, 'p> {
        Node {
            value,
            path,
            pass: self.pass,
        }
    }

    fn elements(&self, values: &'v [Value]) -> Elements<'v, 'p> {
        Elements {
            values: values.iter().enumerate(),
            parent: self.child(None, self.path.clone()),
        }
    }

    fn entries(&self, map: &'v Map<String, Value>, missing: Vec<&'static str>) -> Entries<'v, 'p> {
        Entries {
            given: map.iter(),
            missing: missing.into_iter(),
            next: None,
            parent: self.child(None, self.path.clone()),
        }
    }
}

fn is_integer(value: &Value) -> bool {
    value.is_i64()
        || value.is_u64()
        || value
            .as_f64()
            .is_some_and(|f| f.fract() == 0.0 && f >= i64::MIN as f64 && f < u64::MAX as f64)
}

macro_rules! integers {
    ($($method:ident => $visit:ident),*) => {$(
        fn $method<V: Visitor<'v>>(self, visitor: V) -> Result<V::Value, JsonError> {
            self.read(visitor, is_integer, |v, visitor| v.$method(visitor), |visitor| visitor.$visit(0))
        }
    )*};
}

impl<'v> Deserializer<'v> for Node<'v, '_> {
    type Error = JsonError;

    fn deserialize_any<V: Visitor<'v>>(self, visitor: V) -> Result<V::Value, JsonError> {
        self.read(
            visitor,
            |_| true,
            |v, visitor| v.deserialize_any(visitor),
            |visitor| visitor.visit_unit(),
        )
    }

    fn deserialize_bool<V: Visitor<'v>>(self, visitor: V) -> Result<V::Value, JsonError> {
        self.read(
            visitor,
            Value::is_boolean,
            |v, visitor| v.deserialize_bool(visitor),
            |visitor| visitor.visit_bool(false),
        )
    }

    integers!(
        deserialize_i8 => visit_i64, deserialize_i16 => visit_i64, deserialize_i32 => visit_i64,
        deserialize_i64 => visit_i64, deserialize_u8 => visit_u64, deserialize_u16 => visit_u64,
        deserialize_u32 => visit_u64, deserialize_u64 => visit_u64
    );

    fn deserialize_f32<V: Visitor<'v>>(self, visitor: V) -> Result<V::Value, JsonError> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'v>>(self, visitor: V) -> Result<V::Value, JsonError> {
        self.read(
            visitor,
            Value::is_number,
            |v, visitor| v.deserialize_f64(visitor),
            |visitor| visitor.visit_f64(0.0),
        )
    }

    fn deserialize_char<V: Visitor<'v>>(self, visitor: V) -> Result<V::Value, JsonError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'v>>(self, visitor: V) -> Result<V::Value, JsonError> {
        self.read(
            visitor,
            Value::is_string,
            |v, visitor| v.deserialize_str(visitor),
            |visitor| visitor.visit_borrowed_str(""),
        )
    }

    fn deserialize_string<V: Visitor<'v>>(self, visitor: V) -> Result<V::Value, JsonError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'v>>(self, visitor: V) -> Result<V::Value, JsonError> {
        self.read(
            visitor,
            |v| v.is_string() || v.is_array(),
            |v, visitor| v.deserialize_bytes(visitor),
            |visitor| visitor.visit_borrowed_bytes(&[]),
        )
    }

    fn deserialize_byte_buf<V: Visitor<'v>>(self, visitor: V) -> Result<V::Value, JsonError> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'v>>(self, visitor: V) -> Result<V::Value, JsonError> {
        match self.value {
            Some(Value::Null) => visitor.visit_none(),
            // Missing where serde requires it (an `Option` read by a function of its own) is
            // noted by the inner read, which gets the stand-in.
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'v>>(self, visitor: V) -> Result<V::Value, JsonError> {
        self.read(
            visitor,
            Value::is_null,
            |v, visitor| v.deserialize_unit(visitor),
            |visitor| visitor.visit_unit(),
        )
    }

    fn deserialize_unit_struct<V: Visitor<'v>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, JsonError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'v>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, JsonError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'v>>(self, visitor: V) -> Result<V::Value, JsonError> {
        match self.value {
            Some(Value::Array(values)) if self.pass.refused_at(&self.path).is_none() => {
                let read = visitor.visit_seq(self.elements(values));
                self.pass.stopped(&self.path, read)
            }
            _ => self.read(visitor, |_| false, |_, _| unreachable!(), visit_empty_seq),
        }
    }

    fn deserialize_tuple<V: Visitor<'v>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, JsonError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'v>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, JsonError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'v>>(self, visitor: V) -> Result<V::Value, JsonError> {
        match self.value {
            Some(Value::Object(map)) if self.pass.refused_at(&self.path).is_none() => {
                let read = visitor.visit_map(self.entries(map, Vec::new()));
                self.pass.stopped(&self.path, read)
            }
            _ => self.read(
                visitor,
                |_| false,
                |_, _| unreachable!(),
                |visitor| {
                    visitor.visit_map(de::value::MapDeserializer::<_, JsonError>::new(
                        std::iter::empty::<(&str, &str)>(),
                    ))
                },
            ),
        }
    }

    fn deserialize_struct<V: Visitor<'v>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, JsonError> {
        static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);
        let (pass, path) = (self.pass, self.path.as_str());
        let map = match (self.value, pass.refused_at(path)) {
            (Some(Value::Object(map)), None) => map,
            // serde_json reads a struct from an array too.
            (Some(Value::Array(values)), None) => {
                let read = visitor.visit_seq(self.elements(values));
                return pass.stopped(path, read);
            }
            // A stand-in: an object of the required properties learnt so far (each one's
            // problem is held by this one).
            (Some(_), Some(reason)) => {
                pass.note(path, reason);
                &EMPTY
            }
            (Some(_), None) => {
                pass.note(path, wrong_type(&visitor));
                &EMPTY
            }
            (None, _) => {
                pass.note(path, "is required");
                &EMPTY
            }
        };
        let missing = pass
            .learnt
            .required
            .borrow()
            .iter()
            .filter(|(of, field)| *of == name && !map.contains_key(*field))
            .map(|(_, field)| *field)
            .collect();
        let read = visitor.visit_map(self.entries(map, missing));
        pass.object_stopped(name, fields, path, read)
    }

    fn deserialize_enum<V: Visitor<'v>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, JsonError> {
        let one_of = || format!("must be one of {}", variants.join(", "));
        let known = |v: &Value| match v {
            Value::String(s) => variants.contains(&s.as_str()),
            Value::Object(map) => map.len() == 1,
            _ => false,
        };
        match (self.value, variants.first()) {
            (Some(v), _) if self.pass.refused_at(&self.path).is_none() && known(v) => {
                let read = v.deserialize_enum("", variants, visitor);
                self.pass.stopped(&self.path, read)
            }
            (value, Some(first)) => {
                let reason = match value {
                    None => "is required".to_owned(),
                    Some(_) => self.pass.refused_at(&self.path).unwrap_or_else(one_of),
                };
                self.pass.note(&self.path, reason);
                visitor.visit_enum(UnitVariant(first))
            }
            (_, None) => {
                let read = Err(de::Error::custom(one_of()));
                self.pass.stopped(&self.path, read)
            }
        }
    }

    fn deserialize_identifier<V: Visitor<'v>>(self, visitor: V) -> Result<V::Value, JsonError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'v>>(self, visitor: V) -> Result<V::Value, JsonError> {
        visitor.visit_unit()
    }
}

fn visit_empty_seq<'v, V: Visitor<'v>>(visitor: V) -> Result<V::Value, JsonError> {
    visitor.visit_seq(de::value::SeqDeserializer::<_, JsonError>::new(
        std::iter::empty::<()>(),
    ))
}

/// The elements of an array, each at `path[i]`.
struct Elements<'v, 'p> {
    values: std::iter::Enumerate<std::slice::Iter<'v, Value>>,
    parent: Node<'v, 'p>,
}

impl<'v> SeqAccess<'v> for Elements<'v, '_> {
    type Error = JsonError;

    fn next_element_seed<S: DeserializeSeed<'v>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, JsonError> {
        match self.values.next() {
            Some((i, value)) => {
                let path = format!("{}[{i}]", self.parent.path);
                seed.deserialize(self.parent.child(Some(value), path))
                    .map(Some)
            }
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.values.len())
    }
}

/// The properties of an object, each at `path.name`, then the required ones it lacks.
struct Entries<'v, 'p> {
    given: serde_json::map::Iter<'v>,
    missing: std::vec::IntoIter<&'static str>,
    next: Option<(String, Option<&'v Value>)>,
    parent: Node<'v, 'p>,
}

impl<'v> MapAccess<'v> for Entries<'v, '_> {
    type Error = JsonError;

    fn next_key_seed<K: DeserializeSeed<'v>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, JsonError> {
        let (key, value): (&'v str, Option<&'v Value>) = match self.given.next() {
            Some((key, value)) => (key.as_str(), Some(value)),
            None => match self.missing.next() {
                Some(key) => (key, None),
                None => return Ok(None),
            },
        };
        self.next = Some((property(&self.parent.path, key), value));
        seed.deserialize(BorrowedStrDeserializer::new(key))
            .map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'v>>(&mut self, seed: S) -> Result<S::Value, JsonError> {
        let (path, value) = self
            .next
            .take()
            .ok_or_else(|| de::Error::custom("a value asked for before its key"))?;
        seed.deserialize(self.parent.child(value, path))
    }
}

/// The stand-in for an enum: its first variant, which carries nothing.
struct UnitVariant(&'static str);

impl<'v> EnumAccess<'v> for UnitVariant {
    type Error = JsonError;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'v>>(self, seed: S) -> Result<(S::Value, Self), JsonError> {
        let variant = seed.deserialize(BorrowedStrDeserializer::<JsonError>::new(self.0))?;
        Ok((variant, self))
    }
}

impl<'v> VariantAccess<'v> for UnitVariant {
    type Error = JsonError;

    fn unit_variant(self) -> Result<(), JsonError> {
        Ok(())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'v>>(self, _: S) -> Result<S::Value, JsonError> {
        Err(de::Error::custom("no stand-in for this variant"))
    }

    fn tuple_variant<V: Visitor<'v>>(self, _: usize, _: V) -> Result<V::Value, JsonError> {
        Err(de::Error::custom("no stand-in for this variant"))
    }

    fn struct_variant<V: Visitor<'v>>(
        self,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, JsonError> {
        Err(de::Error::custom("no stand-in for this variant"))
    }
}

/// Serde's account of a body it could not read (`missing field \`description\` at line 1
/// column 25`), in the validator's plain words with the field named:
/// `{"field": "description", "reason": "is required"}`.
pub fn body_problem(path: &str, error: &JsonError) -> Problem {
    use serde_json::error::Category;
    if matches!(
        error.classify(),
        Category::Syntax | Category::Eof | Category::Io
    ) {
        return Problem::new(path, "is not valid JSON");
    }
    let text = error.to_string();
    let text = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(message, _)| message);
    let quoted = |s: &str| s.split('`').nth(1).unwrap_or_default().to_owned();
    if let Some(rest) = text.strip_prefix("missing field ") {
        return Problem::new(property(path, &quoted(rest)), "is required");
    }
    if let Some(rest) = text.strip_prefix("unknown field ") {
        return Problem::new(property(path, &quoted(rest)), "is not a known property");
    }
    if text.starts_with("unknown variant ")
        && let Some((_, expected)) = text.split_once(", expected ")
    {
        // "expected `A` or `B`", "expected one of `A`, `B`, `C`": the names between backticks.
        let names: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        return Problem::new(path, format!("must be one of {}", names.join(", ")));
    }
    if let Some((_, expected)) = text.split_once(", expected ") {
        return Problem::new(path, format!("must be {}", plain_type(expected)));
    }
    Problem::new(path, text)
}

/// Serde's name for an expected type, as a person would say it.
fn plain_type(expected: &str) -> String {
    match expected {
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "isize" | "usize" => {
            "a whole number".into()
        }
        "f32" | "f64" => "a number".into(),
        "a sequence" => "an array".into(),
        "a map" | "struct" => "an object".into(),
        "a boolean" | "a string" => expected.into(),
        other if other.starts_with("struct ") => "an object".into(),
        other => other.into(),
    }
}

#[cfg(test)]
mod tests;
