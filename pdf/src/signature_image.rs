//! Drawn signatures: checked when a signer submits one ([`check_signature_png`]), and when the
//! final PDF is made, PNG data URLs decoded and added as images with a soft mask for their
//! transparency.

use std::io::Cursor;

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use lopdf::{Document, ObjectId, Stream, dictionary};

use crate::stamp_error::{StampError, too_many_objects};

/// A drawn signature is at most this wide and tall, in pixels: the signing page's pad is
/// 600 × 150, so this leaves room for a phone's higher density and refuses images that only
/// make decoding (and the final PDF) expensive.
pub const MAX_SIGNATURE_IMAGE_WIDTH: u32 = 2_000;
pub const MAX_SIGNATURE_IMAGE_HEIGHT: u32 = 1_000;

/// The most pixels a signature image may have when the final PDF is made; a signature pad makes
/// far smaller ones.
const MAX_IMAGE_PIXELS: u64 = 16_000_000;

/// Why a drawn signature is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureImageError {
    #[error("the PNG image cannot be read")]
    Unreadable,
    #[error(
        "a signature image is at most {max_width} × {max_height} pixels; this one is {width} × \
         {height}",
        max_width = MAX_SIGNATURE_IMAGE_WIDTH,
        max_height = MAX_SIGNATURE_IMAGE_HEIGHT
    )]
    Dimensions { width: u32, height: u32 },
    #[error("the PNG image is corrupt")]
    Corrupt,
}

/// Decodes a drawn signature whole, after checking its size from its header: a small file can
/// claim a huge image (a 2 KB 1-bit PNG decodes to 16 M pixels), and the final PDF is rendered
/// from it later.
pub fn check_signature_png(bytes: &[u8]) -> Result<(), SignatureImageError> {
    let mut decoder = png::Decoder::new(Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder
        .read_info()
        .map_err(|_| SignatureImageError::Unreadable)?;
    let (width, height) = reader.info().size();
    if width == 0
        || height == 0
        || width > MAX_SIGNATURE_IMAGE_WIDTH
        || height > MAX_SIGNATURE_IMAGE_HEIGHT
    {
        return Err(SignatureImageError::Dimensions { width, height });
    }
    let size = reader
        .output_buffer_size()
        .ok_or(SignatureImageError::Unreadable)?;
    let mut buffer = vec![0; size];
    reader
        .next_frame(&mut buffer)
        .map_err(|_| SignatureImageError::Corrupt)?;
    Ok(())
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct ImageXObject {
    pub(crate) id: ObjectId,
    pub(crate) width: u32,
    pub(crate) height: u32,
}

pub(crate) struct DecodedPng {
    width: u32,
    height: u32,
    rgb: Vec<u8>,
    /// One byte per pixel, or `None` if the image is opaque.
    alpha: Option<Vec<u8>>,
}

pub(crate) fn is_data_url(value: &str) -> bool {
    value
        .trim_start()
        .get(..5)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("data:"))
}

pub(crate) fn decode_png_data_url(value: &str) -> Option<DecodedPng> {
    let (header, payload) = value.trim().split_once(',')?;
    if !header.eq_ignore_ascii_case("data:image/png;base64") {
        return None;
    }
    let payload: Vec<u8> = payload
        .bytes()
        .filter(|byte| !byte.is_ascii_whitespace())
        .collect();
    let engine = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    decode_png(&engine.decode(payload).ok()?)
}

fn decode_png(bytes: &[u8]) -> Option<DecodedPng> {
    let mut decoder = png::Decoder::new(Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().ok()?;
    let (width, height) = reader.info().size();
    if width == 0 || height == 0 || u64::from(width) * u64::from(height) > MAX_IMAGE_PIXELS {
        return None;
    }
    let mut buffer = vec![0; reader.output_buffer_size()?];
    let frame = reader.next_frame(&mut buffer).ok()?;
    let pixels = buffer.get(..frame.buffer_size())?;
    let (rgb, alpha) = split_channels(pixels, frame.color_type)?;
    Some(DecodedPng {
        width,
        height,
        rgb,
        alpha: alpha.filter(|alpha| alpha.iter().any(|&value| value != u8::MAX)),
    })
}

/// 8-bit samples as RGB and, if the colour type has one, the alpha channel.
fn split_channels(pixels: &[u8], color: png::ColorType) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
    use png::ColorType;
    let (channels, gray, has_alpha) = match color {
        ColorType::Grayscale => (1, true, false),
        ColorType::GrayscaleAlpha => (2, true, true),
        ColorType::Rgb => (3, false, false),
        ColorType::Rgba => (4, false, true),
        // Palettes are expanded by the decoder's transformations.
        ColorType::Indexed => return None,
    };
    let mut rgb = Vec::with_capacity(pixels.len() / channels * 3);
    let mut alpha = Vec::with_capacity(if has_alpha {
        pixels.len() / channels
    } else {
        0
    });
    for pixel in pixels.chunks_exact(channels) {
        if gray {
            rgb.extend([pixel[0]; 3]);
        } else {
            rgb.extend(&pixel[..3]);
        }
        if has_alpha {
            alpha.push(pixel[channels - 1]);
        }
    }
    Some((rgb, has_alpha.then_some(alpha)))
}

pub(crate) fn add_image(doc: &mut Document, png: &DecodedPng) -> Result<ImageXObject, StampError> {
    let image_stream = |color_space: &str, samples: &[u8]| {
        let mut stream = Stream::new(
            dictionary! {
                "Type" => "XObject",
                "Subtype" => "Image",
                "Width" => png.width,
                "Height" => png.height,
                "ColorSpace" => color_space,
                "BitsPerComponent" => 8,
            },
            samples.to_vec(),
        );
        stream
            .compress()
            .map_err(|error| StampError::Write(error.to_string()))?;
        Ok::<_, StampError>(stream)
    };
    let mut image = image_stream("DeviceRGB", &png.rgb)?;
    if let Some(alpha) = &png.alpha {
        let mask = image_stream("DeviceGray", alpha)?;
        let mask = doc.try_add_object(mask).map_err(too_many_objects)?;
        image.dict.set("SMask", mask);
    }
    Ok(ImageXObject {
        id: doc.try_add_object(image).map_err(too_many_objects)?,
        width: png.width,
        height: png.height,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A blank 1-bit grey PNG.
    fn blank_png(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, width, height);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.set_depth(png::BitDepth::One);
        let mut writer = encoder.write_header().expect("header");
        writer
            .write_image_data(&vec![0; width.div_ceil(8) as usize * height as usize])
            .expect("data");
        writer.finish().expect("end");
        bytes
    }

    #[test]
    fn a_submitted_signature_is_decoded_and_its_size_bounded() {
        assert_eq!(check_signature_png(&blank_png(600, 150)), Ok(()));
        let huge = blank_png(4000, 4000);
        assert!(huge.len() < 64 * 1024, "{}", huge.len());
        let refused = check_signature_png(&huge).unwrap_err();
        assert_eq!(
            refused,
            SignatureImageError::Dimensions {
                width: 4000,
                height: 4000
            }
        );
        assert_eq!(
            refused.to_string(),
            "a signature image is at most 2000 × 1000 pixels; this one is 4000 × 4000"
        );
        let mut truncated = blank_png(600, 150);
        truncated.truncate(truncated.len() - 30);
        assert!(check_signature_png(&truncated).is_err());
        assert_eq!(
            check_signature_png(b"not a PNG"),
            Err(SignatureImageError::Unreadable)
        );
    }

    #[test]
    fn grayscale_palette_and_16_bit_pngs_are_decoded() {
        let encode = |color, depth, data: &[u8], palette: Option<&[u8]>| {
            let mut bytes = Vec::new();
            let mut encoder = png::Encoder::new(&mut bytes, 2, 1);
            encoder.set_color(color);
            encoder.set_depth(depth);
            if let Some(palette) = palette {
                encoder.set_palette(palette.to_vec());
            }
            let mut writer = encoder.write_header().expect("header");
            writer.write_image_data(data).expect("data");
            writer.finish().expect("end");
            bytes
        };
        let gray = decode_png(&encode(
            png::ColorType::Grayscale,
            png::BitDepth::Eight,
            &[10, 200],
            None,
        ))
        .expect("gray");
        assert_eq!(gray.rgb, [10, 10, 10, 200, 200, 200]);
        assert!(gray.alpha.is_none());
        let indexed = decode_png(&encode(
            png::ColorType::Indexed,
            png::BitDepth::Eight,
            &[1, 0],
            Some(&[1, 2, 3, 4, 5, 6]),
        ))
        .expect("indexed");
        assert_eq!(indexed.rgb, [4, 5, 6, 1, 2, 3]);
        let deep = decode_png(&encode(
            png::ColorType::GrayscaleAlpha,
            png::BitDepth::Sixteen,
            &[0xFF, 0, 0x80, 0, 0, 0, 0xFF, 0xFF],
            None,
        ))
        .expect("16-bit");
        assert_eq!(deep.rgb, [0xFF, 0xFF, 0xFF, 0, 0, 0]);
        assert_eq!(deep.alpha, Some(vec![0x80, 0xFF]));
    }
}
