"""Sheets: workbooks of sheets stored cell by cell, with a formula engine (formula/)."""
