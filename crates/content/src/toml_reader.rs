//! Reading TOML with positions.
//!
//! We read TOML through `toml`'s span-preserving document (`toml::de::DeTable`)
//! instead of deriving `Deserialize`, because serde stops at the first error
//! and loses positions, while authors need every problem, each with a line
//! and column. [`TableView`] wraps one table and turns "missing", "wrong
//! type" and "unknown key" into diagnostics as it is read.

use std::ops::Range;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use crate::diagnostic::{closest_name, Diagnostics, SourceFile};

/// Parses a whole TOML file. On syntax errors, reports each one and returns
/// `None`: checking the fields of a half-parsed file would only add noise.
pub fn parse_document<'i>(file: &'i SourceFile, diagnostics: &mut Diagnostics) -> Option<Spanned<DeTable<'i>>> {
    let (document, errors) = DeTable::parse_recoverable(&file.text);
    if errors.is_empty() {
        return Some(document);
    }
    for error in errors {
        let offset = error.span().map_or(0, |span| span.start);
        diagnostics.error(
            "toml-syntax",
            file.location(offset),
            format!("invalid TOML: {}", error.message().trim_end()),
            "fix the syntax here (strings need double quotes, arrays need commas and a closing `]`, a key may appear once per table)",
        );
    }
    None
}

/// A short name for the kind of a TOML value, for "but it is ..." in messages.
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
    /// Written as an array (possibly of one element), with the array's span.
    Many(Vec<SpannedText>, Range<usize>),
}

impl OneOrMany {
    /// The strings, whichever way they were written.
    pub fn items(&self) -> Vec<SpannedText> {
        match self {
            OneOrMany::One(text) => vec![text.clone()],
            OneOrMany::Many(texts, _) => texts.clone(),
        }
    }

    /// Where the whole value is written.
    pub fn span(&self) -> Range<usize> {
        match self {
            OneOrMany::One(text) => text.span.clone(),
            OneOrMany::Many(_, span) => span.clone(),
        }
    }
}

/// One TOML table being read, with the dotted prefix of its keys for messages.
pub struct TableView<'a, 'i> {
    /// The file the table is in.
    pub file: &'a SourceFile,
    /// The table.
    pub table: &'a DeTable<'i>,
    /// Where the table starts, for "missing field" errors.
    pub span: Range<usize>,
    /// The dotted path of this table's keys, e.g. `prompt.`; empty at the top.
    pub key_prefix: String,
    /// Names the thing the table describes in messages, e.g. `question 2`.
    pub owner: String,
}

impl<'a, 'i> TableView<'a, 'i> {
    /// A view of a whole document.
    pub fn root(file: &'a SourceFile, table: &'a DeTable<'i>, owner: impl Into<String>) -> Self {
        Self { file, table, span: 0..0, key_prefix: String::new(), owner: owner.into() }
    }

    /// Reports every key not in `allowed`, suggesting the closest allowed name.
    pub fn check_keys(&self, allowed: &[&str], diagnostics: &mut Diagnostics) {
        for (key, _) in self.table.iter() {
            let name: &str = key.get_ref();
            if allowed.contains(&name) {
                continue;
            }
            let prefix = &self.key_prefix;
            let fix = match closest_name(name, allowed) {
                Some(suggestion) => format!("did you mean `{prefix}{suggestion}`?"),
                None => {
                    let listed = allowed
                        .iter()
                        .map(|allowed_name| format!("`{prefix}{allowed_name}`"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    format!("remove it; the fields allowed here are {listed}")
                }
            };
            diagnostics.error(
                "unknown-field",
                self.file.location_of(&key.span()),
                format!("{} has an unknown field `{prefix}{name}`", self.owner),
                fix,
            );
        }
    }

    /// The raw value of a key, if present.
    pub fn get(&self, key: &str) -> Option<&'a Spanned<DeValue<'i>>> {
        self.table.get(key)
    }

    /// The span of a key's value, or of the table when the key is absent.
    pub fn span_of(&self, key: &str) -> Range<usize> {
        self.get(key).map_or(self.span.clone(), |value| value.span())
    }

    fn report_missing(&self, key: &str, example: &str, diagnostics: &mut Diagnostics) {
        diagnostics.error(
            "missing-field",
            self.file.location_of(&self.span),
            format!("{} has no `{}{key}`", self.owner, self.key_prefix),
            format!("add it, for example `{}{key} = {example}`", self.key_prefix),
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
                "`{}{key}` in {} must be {expected}, but it is {}",
                self.key_prefix,
                self.owner,
                kind_name(found.get_ref())
            ),
            format!("write it as `{}{key} = {example}`", self.key_prefix),
        );
    }

    /// A string field; reports a missing (when `required`) or non-string value.
    pub fn string(&self, key: &str, required: bool, diagnostics: &mut Diagnostics) -> Option<SpannedText> {
        let example = "\"...\"";
        let Some(value) = self.get(key) else {
            if required {
                self.report_missing(key, example, diagnostics);
            }
            return None;
        };
        match value.get_ref() {
            DeValue::String(text) => Some(SpannedText { text: text.to_string(), span: value.span() }),
            _ => {
                self.report_wrong_type(key, "a string", value, example, diagnostics);
                None
            }
        }
    }

    /// An array-of-strings field.
    pub fn string_array(&self, key: &str, required: bool, diagnostics: &mut Diagnostics) -> Option<Vec<SpannedText>> {
        let example = "[\"...\", \"...\"]";
        let Some(value) = self.get(key) else {
            if required {
                self.report_missing(key, example, diagnostics);
            }
            return None;
        };
        let parsed = string_items(value);
        if parsed.is_none() {
            self.report_wrong_type(key, "an array of strings", value, example, diagnostics);
        }
        parsed
    }

    /// A field that is a string or an array of strings.
    pub fn one_or_many(&self, key: &str, required: bool, diagnostics: &mut Diagnostics) -> Option<OneOrMany> {
        let Some(value) = self.get(key) else {
            if required {
                self.report_missing(key, "\"...\"", diagnostics);
            }
            return None;
        };
        if let DeValue::String(text) = value.get_ref() {
            return Some(OneOrMany::One(SpannedText { text: text.to_string(), span: value.span() }));
        }
        match string_items(value) {
            Some(items) => Some(OneOrMany::Many(items, value.span())),
            None => {
                let expected = "a string or an array of strings";
                self.report_wrong_type(key, expected, value, "\"...\"", diagnostics);
                None
            }
        }
    }

    /// A boolean field.
    pub fn boolean(&self, key: &str, required: bool, diagnostics: &mut Diagnostics) -> Option<bool> {
        let Some(value) = self.get(key) else {
            if required {
                self.report_missing(key, "true", diagnostics);
            }
            return None;
        };
        match value.get_ref() {
            DeValue::Boolean(flag) => Some(*flag),
            _ => {
                self.report_wrong_type(key, "true or false", value, "true", diagnostics);
                None
            }
        }
    }

    /// An optional non-negative integer field, with its span.
    pub fn count(&self, key: &str, diagnostics: &mut Diagnostics) -> Option<(usize, Range<usize>)> {
        let value = self.get(key)?;
        let DeValue::Integer(integer) = value.get_ref() else {
            self.report_wrong_type(key, "a whole number from 0 up", value, "0", diagnostics);
            return None;
        };
        let written = integer.as_str().replace('_', "");
        let parsed = if integer.radix() == 10 { written.parse::<usize>().ok() } else { None };
        if parsed.is_none() {
            diagnostics.error(
                "wrong-type",
                self.file.location_of(&value.span()),
                format!(
                    "`{}{key}` in {} must be a whole number from 0 up, but it is {written}",
                    self.key_prefix, self.owner
                ),
                format!("write it as `{}{key} = 0` or another number from 0 up", self.key_prefix),
            );
        }
        parsed.map(|number| (number, value.span()))
    }

    /// A sub-table field, as a view of its own. `example_field` names one of
    /// its fields, to show the author how to write the table.
    pub fn table(
        &self,
        key: &str,
        example_field: &str,
        required: bool,
        diagnostics: &mut Diagnostics,
    ) -> Option<TableView<'a, 'i>> {
        let Some(value) = self.get(key) else {
            if required {
                diagnostics.error(
                    "missing-field",
                    self.file.location_of(&self.span),
                    format!("{} has no `{}{key}` table", self.owner, self.key_prefix),
                    format!(
                        "add it with dotted keys, for example `{}{key}.{example_field} = \"...\"`",
                        self.key_prefix
                    ),
                );
            }
            return None;
        };
        match value.get_ref() {
            DeValue::Table(table) => Some(TableView {
                file: self.file,
                table,
                span: value.span(),
                key_prefix: format!("{}{key}.", self.key_prefix),
                owner: self.owner.clone(),
            }),
            _ => {
                diagnostics.error(
                    "wrong-type",
                    self.file.location_of(&value.span()),
                    format!(
                        "`{}{key}` in {} must be a table, but it is {}",
                        self.key_prefix,
                        self.owner,
                        kind_name(value.get_ref())
                    ),
                    format!(
                        "write its fields as dotted keys, for example `{}{key}.{example_field} = \"...\"`",
                        self.key_prefix
                    ),
                );
                None
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnostics_of(text: &str, read: impl Fn(&TableView<'_, '_>, &mut Diagnostics)) -> Vec<String> {
        let file = SourceFile::new("f.toml", text);
        let mut diagnostics = Diagnostics::default();
        if let Some(document) = parse_document(&file, &mut diagnostics) {
            let view = TableView::root(&file, document.get_ref(), "the file");
            read(&view, &mut diagnostics);
        }
        diagnostics.into_sorted().iter().map(ToString::to_string).collect()
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let found = diagnostics_of("a = 1\nb = \"open\n", |_, _| {});
        assert!(!found.is_empty());
        // The parser reports an unclosed string where the line ends.
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("f.toml:2:10: error: invalid TOML: invalid basic string"), "{found:?}");
    }

    #[test]
    fn unknown_keys_point_at_the_key_and_suggest() {
        let found = diagnostics_of("titel = \"x\"\n", |view, diagnostics| {
            view.check_keys(&["title", "summary"], diagnostics);
        });
        assert_eq!(found, ["f.toml:1:1: error: the file has an unknown field `titel`; did you mean `title`?"]);
    }

    #[test]
    fn wrong_types_point_at_the_value() {
        let found = diagnostics_of("flag = \"yes\"\n", |view, diagnostics| {
            view.boolean("flag", true, diagnostics);
        });
        assert_eq!(
            found,
            ["f.toml:1:8: error: `flag` in the file must be true or false, but it is a string; write it as `flag = true`"]
        );
    }
}
