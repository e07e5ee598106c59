//! The document and template lists' query parameters: defaults, parsing and paging
//! arithmetic.

use crate::{
    error::{Error, Problem},
    model::DocumentStatus,
};

pub const DEFAULT_LIMIT: i64 = 10;
pub const MAX_LIMIT: i64 = 100;
/// The last page that may be asked for: far beyond any account, and a bound the OpenAPI
/// document can state (its numbers are 32-bit).
pub const MAX_PAGE: i64 = i32::MAX as i64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortBy {
    DateCreated,
    DocumentName,
    DateModified,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortOrder {
    Asc,
    Desc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusFilter {
    Is(DocumentStatus),
    /// Declined, expired or cancelled.
    Trash,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListQuery {
    pub page: i64,
    pub limit: i64,
    pub status: Option<StatusFilter>,
    pub search: Option<String>,
    pub sort_by: SortBy,
    pub sort_order: SortOrder,
}

impl Default for ListQuery {
    fn default() -> Self {
        Self {
            page: 1,
            limit: DEFAULT_LIMIT,
            status: None,
            search: None,
            sort_by: SortBy::DateCreated,
            sort_order: SortOrder::Desc,
        }
    }
}

/// What a list parameter must be, as a 400's `errors` says it.
fn must_be(name: &str) -> String {
    match name {
        "page" => format!("must be a whole number from 1 to {MAX_PAGE}"),
        "limit" => format!("must be between 1 and {MAX_LIMIT}"),
        "status" => "must be one of DRAFT, SENT, COMPLETED, TRASH".into(),
        "search" => "must not contain control characters".into(),
        "sortBy" => "must be one of dateCreated, documentName, dateModified".into(),
        _ => "must be ASC or DESC".into(),
    }
}

impl ListQuery {
    /// Parses query-string pairs. Unknown parameters are ignored; a known one that is repeated,
    /// empty (except `search`) or out of range is refused with its name and what it must be.
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<Self, Error> {
        let mut query = Self::default();
        let mut seen: Vec<&str> = Vec::new();
        for (name, value) in pairs {
            let known = ["page", "limit", "status", "search", "sortBy", "sortOrder"];
            let Some(name) = known.iter().find(|k| **k == name.as_str()) else {
                continue;
            };
            let invalid = || Error::InvalidQuery(Problem::new(*name, must_be(name)));
            if seen.contains(name) {
                return Err(Error::InvalidQuery(Problem::new(
                    *name,
                    "must be given once",
                )));
            }
            seen.push(name);
            let upper = value.trim().to_ascii_uppercase();
            match *name {
                "page" => {
                    query.page = value.trim().parse().map_err(|_| invalid())?;
                    if !(1..=MAX_PAGE).contains(&query.page) {
                        return Err(invalid());
                    }
                }
                "limit" => {
                    query.limit = value.trim().parse().map_err(|_| invalid())?;
                    if !(1..=MAX_LIMIT).contains(&query.limit) {
                        return Err(invalid());
                    }
                }
                "status" => {
                    query.status = Some(match upper.as_str() {
                        "DRAFT" => StatusFilter::Is(DocumentStatus::Draft),
                        "SENT" => StatusFilter::Is(DocumentStatus::Sent),
                        "COMPLETED" => StatusFilter::Is(DocumentStatus::Completed),
                        "TRASH" => StatusFilter::Trash,
                        _ => return Err(invalid()),
                    })
                }
                "search" if crate::wire::inputs::has_control_chars(value) => return Err(invalid()),
                "search" => query.search = Some(value.clone()).filter(|s| !s.is_empty()),
                "sortBy" => {
                    query.sort_by = match upper.as_str() {
                        "DATECREATED" => SortBy::DateCreated,
                        "DOCUMENTNAME" => SortBy::DocumentName,
                        "DATEMODIFIED" => SortBy::DateModified,
                        _ => return Err(invalid()),
                    }
                }
                _ => {
                    query.sort_order = match upper.as_str() {
                        "ASC" => SortOrder::Asc,
                        "DESC" => SortOrder::Desc,
                        _ => return Err(invalid()),
                    }
                }
            }
        }
        Ok(query)
    }

    pub fn offset(&self) -> i64 {
        (self.page - 1) * self.limit
    }

    pub fn total_pages(&self, total: i64) -> i64 {
        (total + self.limit - 1) / self.limit
    }

    /// The statuses the filter admits; `None` means every status.
    pub fn statuses(&self) -> Option<Vec<DocumentStatus>> {
        self.status.map(|filter| match filter {
            StatusFilter::Is(status) => vec![status],
            StatusFilter::Trash => DocumentStatus::TRASH.to_vec(),
        })
    }
}

/// What the template list is ordered by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplateSortBy {
    DateCreated,
    DateModified,
    Title,
}

/// The template list's query parameters: the document list's `page`, `limit`, `search` and
/// `sortOrder` (read by the same rules), and its own `sortBy`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateListQuery {
    pub page: i64,
    pub limit: i64,
    /// A substring of the title, compared case-insensitively.
    pub search: Option<String>,
    pub sort_by: TemplateSortBy,
    pub sort_order: SortOrder,
}

impl Default for TemplateListQuery {
    fn default() -> Self {
        Self::from(ListQuery::default())
    }
}

impl From<ListQuery> for TemplateListQuery {
    fn from(query: ListQuery) -> Self {
        Self {
            page: query.page,
            limit: query.limit,
            search: query.search,
            sort_by: TemplateSortBy::DateCreated,
            sort_order: query.sort_order,
        }
    }
}

impl TemplateListQuery {
    /// Parses query-string pairs as [`ListQuery::from_pairs`] does; `status` is not one of
    /// this list's parameters and `sortBy` is one of `dateCreated`, `dateModified`, `title`.
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<Self, Error> {
        let shared: Vec<(String, String)> = pairs
            .iter()
            .filter(|(name, _)| name != "status" && name != "sortBy")
            .cloned()
            .collect();
        let mut query = Self::from(ListQuery::from_pairs(&shared)?);
        let mut sort_by = pairs.iter().filter(|(name, _)| name == "sortBy");
        if let Some((_, value)) = sort_by.next() {
            if sort_by.next().is_some() {
                return Err(Error::InvalidQuery(Problem::new(
                    "sortBy",
                    "must be given once",
                )));
            }
            query.sort_by = match value.trim().to_ascii_uppercase().as_str() {
                "DATECREATED" => TemplateSortBy::DateCreated,
                "DATEMODIFIED" => TemplateSortBy::DateModified,
                "TITLE" => TemplateSortBy::Title,
                _ => {
                    return Err(Error::InvalidQuery(Problem::new(
                        "sortBy",
                        "must be one of dateCreated, dateModified, title",
                    )));
                }
            };
        }
        Ok(query)
    }

    pub fn offset(&self) -> i64 {
        (self.page - 1) * self.limit
    }

    pub fn total_pages(&self, total: i64) -> i64 {
        (total + self.limit - 1) / self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(query: &[(&str, &str)]) -> Result<ListQuery, String> {
        let pairs: Vec<(String, String)> = query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        ListQuery::from_pairs(&pairs).map_err(|e| match e {
            Error::InvalidQuery(problem) => problem.field,
            other => panic!("unexpected {other}"),
        })
    }

    #[test]
    fn defaults() {
        assert_eq!(parse(&[("unknown", "x")]).unwrap(), ListQuery::default());
    }

    #[test]
    fn values_and_case_insensitive_enums() {
        let q = parse(&[
            ("page", "3"),
            ("limit", "100"),
            ("status", "trash"),
            ("search", "50%_off"),
            ("sortBy", "documentName"),
            ("sortOrder", "asc"),
        ])
        .unwrap();
        assert_eq!((q.page, q.limit, q.offset()), (3, 100, 200));
        assert_eq!(q.status, Some(StatusFilter::Trash));
        assert_eq!(q.search.as_deref(), Some("50%_off"));
        assert_eq!(
            (q.sort_by, q.sort_order),
            (SortBy::DocumentName, SortOrder::Asc)
        );
        assert_eq!(q.statuses().unwrap().len(), 3);
    }

    #[test]
    fn each_bad_parameter_is_named() {
        for (name, value) in [
            ("page", "0"),
            ("page", "-1"),
            ("page", "x"),
            ("page", ""),
            ("page", "1.5"),
            ("page", "999999999999999999"),
            ("limit", "0"),
            ("limit", "101"),
            ("status", "DECLINED"),
            ("status", ""),
            ("sortBy", "title"),
            ("sortOrder", "up"),
        ] {
            assert_eq!(parse(&[(name, value)]).unwrap_err(), name, "{name}={value}");
        }
        assert_eq!(
            parse(&[("limit", "5"), ("limit", "6")]).unwrap_err(),
            "limit"
        );
    }

    #[test]
    fn total_pages_rounds_up() {
        let q = ListQuery {
            limit: 10,
            ..ListQuery::default()
        };
        assert_eq!(
            [0, 1, 10, 11, 25].map(|t| q.total_pages(t)),
            [0, 1, 1, 2, 3]
        );
    }

    #[test]
    fn the_template_list_reads_its_own_sort_and_the_shared_parameters() {
        let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            list.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let q = TemplateListQuery::from_pairs(&pairs(&[
            ("sortBy", "title"),
            ("sortOrder", "asc"),
            ("search", "Lease"),
            ("page", "2"),
            ("status", "whatever"),
        ]))
        .unwrap();
        assert_eq!(
            (q.sort_by, q.sort_order, q.search.as_deref(), q.offset()),
            (TemplateSortBy::Title, SortOrder::Asc, Some("Lease"), 10)
        );
        for bad in [
            &[("sortBy", "documentName")][..],
            &[("sortBy", "title"), ("sortBy", "title")],
        ] {
            match TemplateListQuery::from_pairs(&pairs(bad)) {
                Err(Error::InvalidQuery(problem)) => assert_eq!(problem.field, "sortBy"),
                other => panic!("{bad:?}: {other:?}"),
            }
        }
    }
}
