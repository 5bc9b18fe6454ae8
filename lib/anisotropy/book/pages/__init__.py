"""What each claim's page shows beyond its verdicts: tables, sentences and figures made from
the claim's measurements (one module per claim page; the page only calls them)."""
