//! An image a signer attaches to an ATTACHMENT field, checked before it is taken: its kind was
//! read from its first bytes, so a file that only starts like a PNG or JPEG (a signature and
//! zeros), or one whose header claims more pixels than anyone attaches (a 588-byte PNG of
//! 65,535 × 65,535), must not be stored and embedded in a final PDF as one. The header is read,
//! its size held to [`MAX_ATTACHMENT_PIXELS`], then the whole image is decoded and dropped.
//! Runs in the PDF sandbox's child ([`crate::sandbox::Task::CheckImage`]), whose memory and CPU
//! time the OS bounds.

use std::io::Cursor;

use serde::{Deserialize, Serialize};

/// The most pixels an attached image may have: 40 megapixels, more than a phone camera's
/// photo (12–24) or an A4 page scanned at 600 dpi (35), and small enough to decode in the
/// sandbox child within its memory (an RGB JPEG of 40 megapixels decodes to 120 MB).
pub const MAX_ATTACHMENT_PIXELS: u64 = 40_000_000;

/// The most bytes the PNG decoder may hold for a file's metadata chunks (text, ICC profiles):
/// an attachment is at most 100 MiB, and its pixels are read a row at a time.
const PNG_METADATA_BYTES: usize = 16 * 1024 * 1024;

/// The kinds of image an attachment may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ImageKind {
    Png,
    Jpeg,
}

impl ImageKind {
    /// `PNG` or `JPEG`, as refusals name the kind.
    pub fn name(self) -> &'static str {
        match self {
            Self::Png => "PNG",
            Self::Jpeg => "JPEG",
        }
    }
}

/// The size of an image that decoded whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageSize {
    pub width: u32,
    pub height: u32,
}

/// Why an attached image is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum ImageError {
    #[error("the file is not a valid {kind} image: {reason}")]
    Invalid { kind: String, reason: String },
    #[error(
        "the image is {width} × {height} pixels; an attachment may have at most {max} pixels \
         (40 megapixels)",
        max = MAX_ATTACHMENT_PIXELS
    )]
    TooManyPixels { width: u64, height: u64 },
}

/// Reads `bytes` as an image of `kind` whole: its header, its size (at most
/// [`MAX_ATTACHMENT_PIXELS`], checked before any pixel is decoded), then every pixel.
pub fn check_attachment_image(kind: ImageKind, bytes: &[u8]) -> Result<ImageSize, ImageError> {
    let invalid = |reason: String| ImageError::Invalid {
        kind: kind.name().into(),
        reason,
    };
    let checked = std::panic::catch_unwind(|| match kind {
        ImageKind::Png => check_png(bytes),
        ImageKind::Jpeg => check_jpeg(bytes),
    });
    match checked {
        Ok(Ok(size)) => Ok(size),
        Ok(Err(Refusal::Invalid(reason))) => Err(invalid(reason)),
        Ok(Err(Refusal::TooManyPixels(width, height))) => {
            Err(ImageError::TooManyPixels { width, height })
        }
        Err(_) => Err(invalid("the decoder failed on it".into())),
    }
}

enum Refusal {
    Invalid(String),
    TooManyPixels(u64, u64),
}

fn within_budget(width: u64, height: u64) -> Result<(), Refusal> {
    if width == 0 || height == 0 {
        return Err(Refusal::Invalid(format!(
            "its header says {width} × {height} pixels"
        )));
    }
    if width * height > MAX_ATTACHMENT_PIXELS {
        return Err(Refusal::TooManyPixels(width, height));
    }
    Ok(())
}

/// The PNG's header (IHDR) first, then every row of its image (the rows of a 16-bit RGBA image
/// 40 million pixels wide are 320 MB: the pixel budget bounds one row as it bounds the image),
/// then its remaining chunks to IEND, each chunk's CRC checked.
fn check_png(bytes: &[u8]) -> Result<ImageSize, Refusal> {
    let invalid = |e: png::DecodingError| Refusal::Invalid(e.to_string());
    let mut decoder = png::Decoder::new_with_limits(
        Cursor::new(bytes),
        png::Limits {
            bytes: PNG_METADATA_BYTES,
        },
    );
    decoder.set_ignore_text_chunk(true);
    let (width, height) = decoder.read_header_info().map_err(invalid)?.size();
    within_budget(u64::from(width), u64::from(height))?;
    let mut reader = decoder.read_info().map_err(invalid)?;
    while reader.next_row().map_err(invalid)?.is_some() {}
    reader.finish().map_err(invalid)?;
    Ok(ImageSize { width, height })
}

/// The JPEG's headers (to its first scan) first, then the whole image, strictly: data that ends
/// early or a marker out of place is an error, not grey pixels.
fn check_jpeg(bytes: &[u8]) -> Result<ImageSize, Refusal> {
    use zune_jpeg::{
        JpegDecoder,
        zune_core::{bytestream::ZCursor, options::DecoderOptions},
    };
    let invalid = |e: zune_jpeg::errors::DecodeErrors| Refusal::Invalid(e.to_string());
    // Its own size limits as high as a JPEG's header can say: the pixel budget decides.
    let options = DecoderOptions::default()
        .set_strict_mode(true)
        .set_max_width(usize::from(u16::MAX))
        .set_max_height(usize::from(u16::MAX));
    let mut decoder = JpegDecoder::new_with_options(ZCursor::new(bytes), options);
    decoder.decode_headers().map_err(invalid)?;
    let (width, height) = decoder
        .dimensions()
        .ok_or_else(|| Refusal::Invalid("it has no frame header".into()))?;
    within_budget(width as u64, height as u64)?;
    decoder.decode().map_err(invalid)?;
    Ok(ImageSize {
        width: width as u32,
        height: height as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer
            .write_image_data(&vec![90; (width * height * 3) as usize])
            .unwrap();
        writer.finish().unwrap();
        bytes
    }

    fn jpeg(width: u16, height: u16) -> Vec<u8> {
        let mut bytes = Vec::new();
        jpeg_encoder::Encoder::new(&mut bytes, 80)
            .encode(
                &vec![200; usize::from(width) * usize::from(height) * 3],
                width,
                height,
                jpeg_encoder::ColorType::Rgb,
            )
            .unwrap();
        bytes
    }

    /// A PNG whose header claims `width` × `height`, with one tiny IDAT: what a 588-byte file
    /// can claim.
    fn png_claiming(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = png(1, 1);
        bytes[16..20].copy_from_slice(&width.to_be_bytes());
        bytes[20..24].copy_from_slice(&height.to_be_bytes());
        let crc = crc32fast::hash(&bytes[12..29]);
        bytes[29..33].copy_from_slice(&crc.to_be_bytes());
        bytes
    }

    fn reason(result: Result<ImageSize, ImageError>) -> String {
        result.unwrap_err().to_string()
    }

    #[test]
    fn real_images_are_taken_with_their_size() {
        assert_eq!(
            check_attachment_image(ImageKind::Png, &png(40, 30)),
            Ok(ImageSize {
                width: 40,
                height: 30
            })
        );
        assert_eq!(
            check_attachment_image(ImageKind::Jpeg, &jpeg(64, 48)),
            Ok(ImageSize {
                width: 64,
                height: 48
            })
        );
    }

    #[test]
    fn a_signature_followed_by_zeros_is_not_an_image() {
        let mut fake_png = b"\x89PNG\r\n\x1a\n".to_vec();
        fake_png.extend([0; 40]);
        let refused = reason(check_attachment_image(ImageKind::Png, &fake_png));
        assert!(
            refused.starts_with("the file is not a valid PNG image: "),
            "{refused}"
        );
        let mut fake_jpeg = vec![0xFF, 0xD8, 0xFF];
        fake_jpeg.extend([0; 40]);
        let refused = reason(check_attachment_image(ImageKind::Jpeg, &fake_jpeg));
        assert!(
            refused.starts_with("the file is not a valid JPEG image: "),
            "{refused}"
        );
    }

    #[test]
    fn a_header_claiming_too_many_pixels_is_refused_before_decoding() {
        let claim = png_claiming(65_535, 65_535);
        assert!(claim.len() < 600);
        assert_eq!(
            reason(check_attachment_image(ImageKind::Png, &claim)),
            "the image is 65535 × 65535 pixels; an attachment may have at most 40000000 pixels \
             (40 megapixels)"
        );
        let mut wide = jpeg(8, 8);
        // The SOF0 frame header's height and width.
        let sof = wide.windows(2).position(|w| w == [0xFF, 0xC0]).unwrap();
        wide[sof + 5..sof + 9].copy_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF]);
        assert!(
            reason(check_attachment_image(ImageKind::Jpeg, &wide))
                .starts_with("the image is 65535 × 65535 pixels"),
        );
    }

    #[test]
    fn a_truncated_image_is_not_one() {
        let whole = png(64, 64);
        let cut = &whole[..whole.len() - 30];
        assert!(
            reason(check_attachment_image(ImageKind::Png, cut))
                .starts_with("the file is not a valid PNG image"),
        );
        let whole = jpeg(64, 64);
        let cut = &whole[..whole.len() / 2];
        assert!(
            reason(check_attachment_image(ImageKind::Jpeg, cut))
                .starts_with("the file is not a valid JPEG image"),
        );
    }
}
