//! A corpus of hostile PDFs, made here rather than stored: each reproduces an attack of
//! issue #29's probe (or of an earlier round) against the PDF parser, the seal's check or
//! its long-term validation data. `cargo run -p signet-tests --bin hostile-pdfs -- DIR`
//! writes them out for a probe by hand; `tests/suite/hostile_pdfs.rs` throws them at the real
//! binaries.

use lopdf::{Dictionary, IncrementalDocument, Object, Stream, dictionary};

/// A PDF sealed with a development seal, as the start of the attacks on the seal's check.
pub fn sealed_sample() -> Vec<u8> {
    let key = signet_pdf::seal::SealKey::development().expect("a development seal");
    let details = signet_pdf::seal::SealDetails {
        reason: "Completed in Signet, document HOSTILE",
        signing_time: chrono::Utc::now(),
        stamped_sha256: "0",
    };
    signet_pdf::seal::seal(&one_page_with(&[]), &key, &details).expect("sealed")
}

/// One hostile file and what it does.
pub struct Hostile {
    pub name: &'static str,
    pub what: &'static str,
    pub bytes: Vec<u8>,
    /// Whether Signet takes it as an upload: its pages read, and the attack is on what only
    /// the seal's check reads (the DSS, the signature), or on an object lopdf drops as
    /// unreadable (nested past its own limit) that the pages do not need.
    pub uploadable: bool,
}

/// The whole corpus. `sealed` is a genuine final PDF (sealed by any key): the attacks on the
/// seal's check start from one, as an attacker would from a final PDF they were sent.
pub fn corpus(sealed: &[u8]) -> Vec<Hostile> {
    vec![
        Hostile {
            name: "decompression-bomb",
            what: "three object streams of 250 MB of zeros each (729 KB)",
            bytes: decompression_bomb(&[250_000_000; 3]),
            uploadable: false,
        },
        Hostile {
            name: "object-stream-arrays",
            what: "an object stream holding [[][][]…]: 16 MB of empty arrays from a few KB",
            bytes: object_stream_arrays(8_000_000),
            uploadable: false,
        },
        Hostile {
            name: "plain-arrays",
            what: "a plain object [[][][]…] of 12 million empty arrays (24 MB), ~100 bytes of heap each",
            bytes: plain_arrays(12_000_000),
            uploadable: false,
        },
        Hostile {
            name: "deep-nesting",
            what: "arrays nested 200,000 deep",
            bytes: deep_nesting(200_000),
            uploadable: true,
        },
        Hostile {
            name: "xref-fan-out",
            what: "a cross-reference stream of 1,000,000 entries all pointing at one 1.6 KB stream",
            bytes: xref_fan_out(1_000_000),
            uploadable: false,
        },
        Hostile {
            name: "byte-range-prefix",
            what: "a seal whose /ByteRange ends before the file does, on the fan-out file",
            bytes: byte_range_prefix(&xref_fan_out(300_000)),
            uploadable: false,
        },
        Hostile {
            name: "dss-bomb",
            what: "a genuine final PDF with a DSS of ten 200 MB OCSP streams appended",
            bytes: dss_bomb(sealed, 10, 200_000_000),
            uploadable: true,
        },
        Hostile {
            name: "many-certificates",
            // 2,000 is enough: anything past 16 KiB is refused before it is decoded, and a
            // 20 MB file (20,000) cost a debug build's upload check ~9 s of its 10 s of CPU.
            what: "a seal whose CMS carries 2,000 certificates",
            bytes: many_certificates(2_000),
            uploadable: true,
        },
    ]
}

/// A one-page PDF with `extra` as objects 4, 5, …, and `trailer` added to its trailer,
/// written by hand with a classic cross-reference table (lopdf would rewrite what the attack
/// depends on).
pub fn one_page_with(extra: &[Vec<u8>]) -> Vec<u8> {
    let mut objects: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>".to_vec(),
    ];
    objects.extend(extra.iter().cloned());
    let mut pdf = b"%PDF-1.7\n".to_vec();
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend(format!("{} 0 obj\n", i + 1).as_bytes());
        pdf.extend(object);
        pdf.extend(b"\nendobj\n");
    }
    let xref = pdf.len();
    pdf.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for offset in offsets {
        pdf.extend(format!("{offset:010} 00000 n \n").as_bytes());
    }
    pdf.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    pdf
}

fn flate(plain: Vec<u8>) -> Vec<u8> {
    let mut stream = Stream::new(Dictionary::new(), plain);
    stream.compress().expect("compress");
    stream.content
}

fn stream_object(dict: &str, content: &[u8]) -> Vec<u8> {
    let mut object = format!("<< {dict} /Length {} >>\nstream\n", content.len()).into_bytes();
    object.extend(content);
    object.extend(b"\nendstream");
    object
}

/// Object streams inflating to `inflated` zero bytes each.
pub fn decompression_bomb(inflated: &[usize]) -> Vec<u8> {
    let streams: Vec<Vec<u8>> = inflated
        .iter()
        .map(|&size| {
            stream_object(
                "/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode",
                &flate(vec![0; size]),
            )
        })
        .collect();
    one_page_with(&streams)
}

fn empty_arrays(count: usize) -> Vec<u8> {
    let mut text = Vec::with_capacity(2 * count + 2);
    text.push(b'[');
    for _ in 0..count {
        text.extend(b"[]");
    }
    text.push(b']');
    text
}

/// An object stream whose one object (number 5) is an array of `count` empty arrays.
pub fn object_stream_arrays(count: usize) -> Vec<u8> {
    let mut plain = b"5 0 ".to_vec();
    plain.extend(empty_arrays(count));
    one_page_with(&[stream_object(
        "/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode",
        &flate(plain),
    )])
}

/// A plain object that is an array of `count` empty arrays.
pub fn plain_arrays(count: usize) -> Vec<u8> {
    one_page_with(&[empty_arrays(count)])
}

/// Arrays nested `depth` deep.
pub fn deep_nesting(depth: usize) -> Vec<u8> {
    let mut object = vec![b'['; depth];
    object.extend(std::iter::repeat_n(b']', depth));
    one_page_with(&[object])
}

/// A file whose cross-reference stream gives objects 4 to `entries + 3` one offset: that of a
/// 1.6 KB stream, which a loader reads again for each.
pub fn xref_fan_out(entries: usize) -> Vec<u8> {
    let page = b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n\
2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n\
3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>\nendobj\n";
    let mut pdf = page.to_vec();
    let offsets = [9, find(&pdf, b"2 0 obj"), find(&pdf, b"3 0 obj")];
    let target = pdf.len();
    let content = flate(vec![b'x'; 200_000]);
    let content = &content[..content.len().min(1600)];
    pdf.extend(b"4 0 obj\n");
    pdf.extend(stream_object("/Filter /FlateDecode", content));
    pdf.extend(b"\nendobj\n");
    let xref_at = pdf.len();
    let size = entries + 5;
    let mut rows = vec![0u8, 0, 0, 0, 0, 0xff, 0xff];
    let row = |offset: usize| {
        let mut row = vec![1u8];
        row.extend((offset as u32).to_be_bytes());
        row.extend([0, 0]);
        row
    };
    for offset in offsets {
        rows.extend(row(offset));
    }
    for _ in 0..entries {
        rows.extend(row(target));
    }
    rows.extend(row(xref_at));
    let rows = flate(rows);
    pdf.extend(format!("{} 0 obj\n", size - 1).as_bytes());
    pdf.extend(stream_object(
        &format!("/Type /XRef /Size {size} /W [1 4 2] /Root 1 0 R /Filter /FlateDecode"),
        &rows,
    ));
    pdf.extend(format!("\nendobj\nstartxref\n{xref_at}\n%%EOF\n").as_bytes());
    pdf
}

fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
        .expect("present")
}

/// `prefix` with an update that adds a signature whose /ByteRange covers only `prefix`: a
/// checker that loads the signed prefix on its own loads everything in it again.
pub fn byte_range_prefix(prefix: &[u8]) -> Vec<u8> {
    let doc = lopdf::Document::load_mem(prefix).expect("the prefix loads");
    let catalog_id = doc.trailer.get(b"Root").unwrap().as_reference().unwrap();
    let mut catalog = doc.get_dictionary(catalog_id).unwrap().clone();
    let mut update = IncrementalDocument::create_from(prefix.to_vec(), doc);
    let new = &mut update.new_document;
    let contents_at = 40usize;
    let signature = new.add_object(dictionary! {
        "Type" => "Sig",
        "Filter" => "Adobe.PPKLite",
        "ByteRange" => vec![0.into(), (contents_at as i64).into(), ((contents_at + 2) as i64).into(), ((prefix.len() - contents_at - 2) as i64).into()],
        "Contents" => Object::String(vec![0; 64], lopdf::StringFormat::Hexadecimal),
    });
    let field = new.add_object(dictionary! {
        "FT" => "Sig", "T" => Object::string_literal("seal"), "V" => signature,
    });
    catalog.set("AcroForm", dictionary! { "Fields" => vec![field.into()] });
    new.objects.insert(catalog_id, catalog.into());
    let mut bytes = Vec::new();
    update.save_to(&mut bytes).expect("save");
    bytes
}

/// `sealed` with an update that adds a DSS of `count` OCSP streams of `inflated` zero bytes.
pub fn dss_bomb(sealed: &[u8], count: usize, inflated: usize) -> Vec<u8> {
    let doc = lopdf::Document::load_mem(sealed).expect("a sealed PDF");
    let catalog_id = doc.trailer.get(b"Root").unwrap().as_reference().unwrap();
    let mut catalog = doc.get_dictionary(catalog_id).unwrap().clone();
    let mut update = IncrementalDocument::create_from(sealed.to_vec(), doc);
    let new = &mut update.new_document;
    let bomb = flate(vec![0; inflated]);
    let ocsps: Vec<Object> = (0..count)
        .map(|_| {
            let stream = Stream::new(dictionary! { "Filter" => "FlateDecode" }, bomb.clone())
                .with_compression(false);
            new.add_object(stream).into()
        })
        .collect();
    let dss = new.add_object(dictionary! { "Type" => "DSS", "OCSPs" => ocsps });
    catalog.set("DSS", dss);
    new.objects.insert(catalog_id, catalog.into());
    let mut bytes = Vec::new();
    update.save_to(&mut bytes).expect("save");
    bytes
}

/// A one-page file with a signature whose /ByteRange is right and whose /Contents is a CMS
/// SignedData carrying `count` copies of a certificate: decoding its certificate set costs
/// the square of their count.
pub fn many_certificates(count: usize) -> Vec<u8> {
    let certificate = a_certificate();
    let mut certificates = Vec::with_capacity(count * certificate.len());
    for _ in 0..count {
        certificates.extend(&certificate);
    }
    let oid_signed_data = [
        0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02,
    ];
    let oid_data = [
        0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01,
    ];
    let signed_data = der(
        0x30,
        &[
            der(0x02, &[1]),
            der(0x31, &[]),
            der(0x30, &oid_data),
            der(0xa0, &certificates),
            der(0x31, &[]),
        ]
        .concat(),
    );
    let cms = der(
        0x30,
        &[oid_signed_data.to_vec(), der(0xa0, &signed_data)].concat(),
    );

    // A fresh file: the signature's place sized for this CMS, its byte range then filled in.
    let hex = hex::encode_upper(&cms);
    let placeholder = "0 0000000000 0000000000 0000000000";
    let mut pdf = format!(
        "%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R] >> >>\nendobj\n\
2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n\
3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>\nendobj\n\
4 0 obj\n<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /ByteRange [{placeholder}] /Contents <{hex}> >>\nendobj\n\
5 0 obj\n<< /FT /Sig /T (seal) /V 4 0 R >>\nendobj\n"
    )
    .into_bytes();
    let offsets: Vec<usize> = (1..=5)
        .map(|i| find(&pdf, format!("{i} 0 obj").as_bytes()))
        .collect();
    let xref = pdf.len();
    pdf.extend(b"xref\n0 6\n0000000000 65535 f \n");
    for offset in offsets {
        pdf.extend(format!("{offset:010} 00000 n \n").as_bytes());
    }
    pdf.extend(
        format!("trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n").as_bytes(),
    );
    let open = find(&pdf, b"/Contents <") + b"/Contents ".len();
    let close = open + hex.len() + 2;
    let range = format!("0 {open:010} {close:010} {:010}", pdf.len() - close);
    let at = find(&pdf, placeholder.as_bytes());
    pdf[at..at + range.len()].copy_from_slice(range.as_bytes());
    pdf
}

/// The DER of a development seal's certificate.
fn a_certificate() -> Vec<u8> {
    use base64::Engine as _;
    let pem = signet_pdf::seal::SealKey::development()
        .and_then(|seal| seal.chain_pem())
        .expect("a development seal");
    let body: String = pem
        .lines()
        .skip_while(|line| !line.starts_with("-----BEGIN"))
        .skip(1)
        .take_while(|line| !line.starts_with("-----END"))
        .collect();
    base64::engine::general_purpose::STANDARD
        .decode(body)
        .expect("PEM")
}

/// A DER TLV with a definite length.
fn der(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = content.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes: Vec<u8> = len
            .to_be_bytes()
            .into_iter()
            .skip_while(|&b| b == 0)
            .collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend(content);
    out
}
