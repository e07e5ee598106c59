//! PDFs made for a test.

/// A PDF with one empty page per size (width, height in points), made with lopdf.
pub fn pdf(pages: &[(f64, f64)]) -> Vec<u8> {
    use lopdf::{Document, Object, Stream, dictionary};
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let kids: Vec<Object> = pages
        .iter()
        .map(|(w, h)| {
            let content = doc.add_object(Stream::new(dictionary! {}, b"".to_vec()));
            doc.add_object(dictionary! {
                "Type" => "Page",
                "Parent" => pages_id,
                "MediaBox" => vec![0.into(), 0.into(), Object::Real(*w as f32), Object::Real(*h as f32)],
                "Contents" => content,
            })
            .into()
        })
        .collect();
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Count" => kids.len() as i64,
            "Kids" => kids,
        }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).expect("save pdf");
    bytes
}

pub const LETTER: (f64, f64) = (612.0, 792.0);
