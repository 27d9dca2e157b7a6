//! Reading TOML with positions.
//!
//! We parse with `toml`'s span-preserving document (`toml::de::DeTable`)
//! instead of deriving `Deserialize`, because serde stops at the first error
//! and loses positions, while authors need every problem, each with a line
//! and column. [`TableView`] wraps one table and turns "missing", "wrong
//! type" and "unknown key" into diagnostics as it is read.

use std::ops::Range;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use crate::diagnostic::{closest_name, Diagnostics, SourceFile};

/// Parses a whole TOML file, reporting every syntax error it can recover from.
pub fn parse_document<'i>(
    file: &'i SourceFile,
    diagnostics: &mut Diagnostics,
) -> Option<Spanned<DeTable<'i>>> {
    let (document, errors) = DeTable::parse_recoverable(&file.text);
    if errors.is_empty() {
        return Some(document);
    }
    for error in errors {
        let offset = error.span().map_or(0, |span| span.start);
        diagnostics.error(
            "toml-syntax",
            file.location(offset),
            format!("this is not valid TOML: {}", error.message().trim_end()),
            "fix the TOML syntax here; strings need quotes, and each key may appear once per table",
        );
    }
    None
}

/// A short name for the kind of a TOML value, for "found ..." in messages.
pub fn kind_name(value: &DeValue<'_>) -> &'static str {
    match value {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date-time",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

/// A string value with the span it came from.
#[derive(Debug, Clone)]
pub struct SpannedText {
    /// The string itself.
    pub text: String,
    /// Its byte range in the file.
    pub span: Range<usize>,
}

/// A field that holds one string or an array of strings (mdbook-quiz's `answer.answer`).
#[derive(Debug, Clone)]
pub enum OneOrMany {
    /// Written as a string.
    One(SpannedText),
    /// Written as an array (possibly of one element).
    Many(Vec<SpannedText>, Range<usize>),
}

/// One TOML table being read, with the dotted prefix of its keys for messages.
pub struct TableView<'a, 'i> {
    /// The file the table is in.
    pub file: &'a SourceFile,
    /// The table.
    pub table: &'a DeTable<'i>,
    /// Where the table starts, for "missing field" errors.
    pub span: Range<usize>,
    /// The dotted path of this table from the thing being described, e.g. `prompt.`.
    pub key_prefix: String,
    /// Names the thing the table belongs to in messages, e.g. `question 2`.
    pub owner: String,
}

impl<'a, 'i> TableView<'a, 'i> {
    /// Reports every key not in `allowed`, suggesting the closest allowed name.
    pub fn check_keys(&self, allowed: &[&str], diagnostics: &mut Diagnostics, extra_help: &str) {
        for (key, _) in self.table.iter() {
            let name: &str = key.get_ref();
            if allowed.contains(&name) {
                continue;
            }
            let listed = allowed
                .iter()
                .map(|allowed_name| format!("`{}{allowed_name}`", self.key_prefix))
                .collect::<Vec<_>>()
                .join(", ");
            let help = match closest_name(name, allowed) {
                Some(suggestion) => format!(
                    "did you mean `{}{suggestion}`? The fields allowed here are {listed}{extra_help}",
                    self.key_prefix
                ),
                None => format!("remove it; the fields allowed here are {listed}{extra_help}"),
            };
            diagnostics.error(
                "unknown-field",
                self.file.location_of(&key.span()),
                format!("unknown field `{}{name}` in {}", self.key_prefix, self.owner),
                help,
            );
        }
    }

    /// The raw value of a key, if present.
    pub fn get(&self, key: &str) -> Option<&'a Spanned<DeValue<'i>>> {
        self.table.get(key)
    }

    fn report_missing(&self, key: &str, example: &str, diagnostics: &mut Diagnostics) {
        diagnostics.error(
            "missing-field",
            self.file.location_of(&self.span),
            format!("{} has no `{}{key}`", self.owner, self.key_prefix),
            format!("add it, for example: {}{key} = {example}", self.key_prefix),
        );
    }

    fn report_wrong_type(
        &self,
        key: &str,
        expected: &str,
        found: &Spanned<DeValue<'i>>,
        example: &str,
        diagnostics: &mut Diagnostics,
    ) {
        diagnostics.error(
            "wrong-type",
            self.file.location_of(&found.span()),
            format!(
                "`{}{key}` in {} must be {expected}, found {}",
                self.key_prefix,
                self.owner,
                kind_name(found.get_ref())
            ),
            format!("write it as {}{key} = {example}", self.key_prefix),
        );
    }

    /// A string field; reports a missing (when `required`) or non-string value.
    pub fn string(
        &self,
        key: &str,
        required: bool,
        diagnostics: &mut Diagnostics,
    ) -> Option<SpannedText> {
        let example = "\"...\"";
        match self.get(key) {
            None => {
                if required {
                    self.report_missing(key, example, diagnostics);
                }
                None
            }
            Some(value) => match value.get_ref() {
                DeValue::String(text) => {
                    Some(SpannedText { text: text.to_string(), span: value.span() })
                }
                _ => {
                    self.report_wrong_type(key, "a string", value, example, diagnostics);
                    None
                }
            },
        }
    }

    /// An array-of-strings field.
    pub fn string_array(
        &self,
        key: &str,
        required: bool,
        diagnostics: &mut Diagnostics,
    ) -> Option<Vec<SpannedText>> {
        let example = "[\"...\", \"...\"]";
        match self.get(key) {
            None => {
                if required {
                    self.report_missing(key, example, diagnostics);
                }
                None
            }
            Some(value) => {
                let parsed = string_items(value);
                if parsed.is_none() {
                    self.report_wrong_type(
                        key,
                        "an array of strings",
                        value,
                        example,
                        diagnostics,
                    );
                }
                parsed
            }
        }
    }

    /// A field that is a string or an array of strings.
    pub fn one_or_many(
        &self,
        key: &str,
        required: bool,
        diagnostics: &mut Diagnostics,
    ) -> Option<OneOrMany> {
        let example = "\"...\" (one correct answer) or [\"...\", \"...\"] (several)";
        match self.get(key) {
            None => {
                if required {
                    self.report_missing(key, example, diagnostics);
                }
                None
            }
            Some(value) => match value.get_ref() {
                DeValue::String(text) => {
                    Some(OneOrMany::One(SpannedText { text: text.to_string(), span: value.span() }))
                }
                _ => match string_items(value) {
                    Some(items) => Some(OneOrMany::Many(items, value.span())),
                    None => {
                        self.report_wrong_type(
                            key,
                            "a string or an array of strings",
                            value,
                            example,
                            diagnostics,
                        );
                        None
                    }
                },
            },
        }
    }

    /// A boolean field.
    pub fn boolean(&self, key: &str, required: bool, diagnostics: &mut Diagnostics) -> Option<bool> {
        match self.get(key) {
            None => {
                if required {
                    self.report_missing(key, "true", diagnostics);
                }
                None
            }
            Some(value) => match value.get_ref() {
                DeValue::Boolean(flag) => Some(*flag),
                _ => {
                    self.report_wrong_type(key, "true or false", value, "true", diagnostics);
                    None
                }
            },
        }
    }

    /// A non-negative integer field.
    pub fn count(
        &self,
        key: &str,
        diagnostics: &mut Diagnostics,
    ) -> Option<(usize, Range<usize>)> {
        let value = self.get(key)?;
        let parsed = match value.get_ref() {
            DeValue::Integer(integer) => integer
                .as_str()
                .replace('_', "")
                .parse::<usize>()
                .ok(),
            _ => None,
        };
        if parsed.is_none() {
            self.report_wrong_type(key, "a whole number from 0 up", value, "0", diagnostics);
        }
        parsed.map(|number| (number, value.span()))
    }

    /// A sub-table field, as a view of its own.
    pub fn table(
        &self,
        key: &str,
        required: bool,
        diagnostics: &mut Diagnostics,
    ) -> Option<TableView<'a, 'i>> {
        match self.get(key) {
            None => {
                if required {
                    self.report_missing(key, "{ ... } (or dotted keys like `key.field = ...`)", diagnostics);
                }
                None
            }
            Some(value) => match value.get_ref() {
                DeValue::Table(table) => Some(TableView {
                    file: self.file,
                    table,
                    span: value.span(),
                    key_prefix: format!("{}{key}.", self.key_prefix),
                    owner: self.owner.clone(),
                }),
                _ => {
                    self.report_wrong_type(
                        key,
                        "a table",
                        value,
                        &format!("... (use dotted keys, e.g. {}{key}.prompt = \"...\")", self.key_prefix),
                        diagnostics,
                    );
                    None
                }
            },
        }
    }
}

/// The strings of an array value, or `None` if it is not an array of strings.
fn string_items(value: &Spanned<DeValue<'_>>) -> Option<Vec<SpannedText>> {
    let DeValue::Array(items) = value.get_ref() else {
        return None;
    };
    items
        .iter()
        .map(|item| match item.get_ref() {
            DeValue::String(text) => Some(SpannedText { text: text.to_string(), span: item.span() }),
            _ => None,
        })
        .collect()
}
