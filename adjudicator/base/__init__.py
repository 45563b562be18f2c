"""What every other part may use, and which uses none of them: the configuration, logging,
secrets and receipts, the folders the package ships and the crash points of the crash tests.
"""
