"""crm: a Salesforce/HubSpot-like CRM (accounts, contacts, leads, opportunities, products, line items,
discount approvals, activities, cases)."""
