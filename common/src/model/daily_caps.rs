//! The daily caps on SMS (SMS_DAILY_CAP_PER_NUMBER, SMS_DAILY_CAP_PER_ACCOUNT).

/// How many SMS one account may queue per UTC day, to one number and in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DailyCaps {
    pub per_number: i32,
    pub per_account: i32,
}

impl DailyCaps {
    /// Why an SMS was refused when the account's cap for the day is used up.
    pub(crate) fn account_reached(self) -> String {
        format!(
            "the account's daily SMS cap ({} per day, SMS_DAILY_CAP_PER_ACCOUNT) was reached",
            self.per_account
        )
    }

    /// Why an SMS was refused when the number's cap for the day is used up.
    pub(crate) fn number_reached(self) -> String {
        format!(
            "the daily SMS cap for this number ({} per day, SMS_DAILY_CAP_PER_NUMBER) was reached",
            self.per_number
        )
    }
}
