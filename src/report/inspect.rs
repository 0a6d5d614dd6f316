//! The report of `rehearse inspect`: one [`Inspection`] as text (`inspect/text.rs`, free to
//! change) or as the versioned `rehearse.inspect/v1` document (`inspect/json.rs`, stable),
//! through [`write`]. The checkpoint crate holds the model; only its rendering lives here.

mod json;
mod text;

use std::io::{self, Write};

use super::format::Format;
use crate::checkpoint::Inspection;

pub use json::{to_json, InspectDocument, SCHEMA};
pub use text::write_text;

/// Writes `inspection` to `out` in `format`: [`Format::Terminal`] is [`write_text`] (no colour:
/// the style is not read), [`Format::Json`] the `rehearse.inspect/v1` document (pretty,
/// newline-terminated, secrets masked: [`crate::text::write_json`]). An inspection has no
/// JUnit, Markdown or HTML writer: those formats are an [`io::ErrorKind::Unsupported`] error
/// ([`Format::unsupported`]), which `rehearse inspect` never asks for.
pub fn write(format: Format, inspection: &Inspection, out: &mut impl Write) -> io::Result<()> {
    match format {
        Format::Terminal(_) => write_text(inspection, out),
        Format::Json => crate::text::write_json(out, &to_json(inspection)),
        Format::Junit | Format::Markdown | Format::Html => Err(format.unsupported("inspect")),
    }
}
